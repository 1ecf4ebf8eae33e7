from app.launch.cli import main

raise SystemExit(main())
