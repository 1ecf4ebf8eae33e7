# The program `python3 -I -S -c` runs for the job scripts (the line that starts the job) and for app/host/launch's own
# commands (app/host/launch/checkout.py): argv[1] is a checkout, argv[2] a module of it, run as `-m` would, with only
# the checkout and the standard library on the path. Not imported: its text is passed to -c.
import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); runpy.run_module(sys.argv.pop(1), run_name="__main__", alter_sys=True)  # noqa: E401,E501,E702,I001
