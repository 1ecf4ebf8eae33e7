# The program `python3 -I -S -c` runs for the job scripts (the line that starts the job, build-image.sh's too) and for
# app/host/launch's own commands (app/host/launch/checkout.py): argv[1] is a checkout, argv[2] a module of it, run as
# `-m` would, with only the checkout (and, for imagetool, its containers/) and the standard library on the path. First,
# before any other file of the checkout is read, app/host/common/owners.py, read as text (no bytecode of it is
# loaded), refuses in one line, exit 2, a checkout whose code another user could change. Not imported: its text is
# passed to -c.
import os, runpy, sys, types  # noqa: E401,I001
checkout, module = sys.argv.pop(1), sys.argv.pop(1)
owners = types.ModuleType("owners")
with open(os.path.join(checkout, "app", "host", "common", "owners.py"), encoding="utf-8") as source:
    exec(compile(source.read(), source.name, "exec"), owners.__dict__)
owners.exit_unless_yours(checkout, module, sys.argv[1:])
sys.path[:0] = [os.path.normpath(os.path.join(checkout, part)) for part in owners.program(module).path]
runpy.run_module(module, run_name="__main__", alter_sys=True)
