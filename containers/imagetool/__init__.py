"""Apptainer image tooling: render the build arguments, render and lint the definition, summarise.

`python -m imagetool render|lint|summary --arch x86_64|aarch64|smoke`; `make image` runs `lint`
then `apptainer build` with the rendered arguments. Modules: `buildargs` (versions + arch files ->
one --build-arg-file), `definition` (`{{ }}` substitution, sections, spython parse), `lint` (the
invariants), `__main__` (the command line).
"""
