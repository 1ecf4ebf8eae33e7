from app.host.launch.cli import main

raise SystemExit(main())
