"""Apptainer image tooling: render the build arguments, render and lint the definition, summarise.

`python -m imagetool render|lint|summary|check-host|build --arch x86_64|aarch64|smoke`; `make image` runs
`lint`, `check-host`, then `build` with the rendered arguments. Modules: `buildargs` (versions + arch files ->
one --build-arg-file), `definition` (`{{ }}` substitution, sections, spython parse), `lint` (the
invariants), `apptainer` (the installed release and the command lines it takes), `buildhost` (fakeroot,
emulation and disk space on the build host), `buildjob` (those steps as a batch job on a compute node,
jobscripts/build-image.sh), `appwheel` (the app's own wheel, on the standard library: `pyproject` reads
pyproject.toml without tomllib), `__main__` (the command line).
"""
