"""PYTHONPATH=containers python -m imagetool render|lint|summary|sources --arch FLAVOUR

Build-time tooling (`make image`, `make image-lint` run it); it lives beside the definitions it reads
and is not part of the runtime `app` package.

  render   print the --build-arg-file for that flavour (or write it with --out FILE); --all adds the
           arguments the definition does not use (Apptainer rejects those, host-side tools read them)
  lint     render the definition and check its invariants (exit 2 with every problem listed)
  summary  lint, then print the base, every pinned version and the build command
  sources  --mirror DIR: download every pinned source archive DIR lacks and check its sha256
           (`make sources`); with --check, only check that DIR holds them all and the flavour's
           distribution packages (debs-FLAVOUR/SHA256SUMS, lists/), and that no other user can write DIR,
           before an offline build
  check-host  can this host build the flavour (--build-arch, --apptainer, --extra as for build), and is a local
           base (BOOTSTRAP=localimage) for the flavour's ARCH? Stops in one line with the fix; warns where
           the build works a weaker way; says the disk space it needs and where
  pull-base  pull the flavour's registry base for its platform into --out FILE (`make base`), after checking
           the disk space the pull needs; --dry-run prints the command
  build    run `apptainer build` with the flags the installed release takes (--apptainer EXE, --build-arch
           the image's architecture, --args-file, --out SIF, --squashfs-args, --extra FLAGS); --dry-run prints it
  wheel    --out DIR: the app's own wheel (app-VERSION-py3-none-any.whl) into DIR, built from this checkout with
           the standard library alone, with the files setuptools' build takes (containers/wheelhouse.sh)
  build-job  the image build job (jobscripts/build-image.sh): the steps above for the flavour of the node it runs
           on, in a private scratch directory; its knobs are environment variables (FLAVOUR, SOURCES, BASE, ...:
           docs/knobs.md), not these options
"""

import argparse
import os
import platform
import shlex
import sys
from pathlib import Path
from typing import Dict, List, Optional

from app.host.common import exitcodes
from app.host.common.errors import UsageError, exits_cleanly
from imagetool import buildjob
from imagetool.apptainer import build_command, pull_command, read_runtime
from imagetool.appwheel import build_wheel
from imagetool.basearch import check_base_arch
from imagetool.buildargs import CONTAINERS_DIR, flavours, format_build_args, parse_overrides, render_build_args
from imagetool.buildhost import Host, build_needs, check_host, check_space, pull_needs
from imagetool.definition import placeholders
from imagetool.lint import lint_definition
from imagetool.sources import check_debs, check_mirror, check_mirror_owners, fill_mirror, pinned_sources


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m imagetool", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["render", "lint", "summary", "sources", "check-host", "pull-base", "build",
                                                "wheel", "build-job"])
    parser.add_argument("--arch", default=platform.machine(),
                        help=f"flavour: {', '.join(flavours())} (default: this machine, {platform.machine()})")
    parser.add_argument("--definition", type=Path, default=CONTAINERS_DIR / "app.def",
                        help="definition file (default: containers/app.def); its directory holds the env files")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a build argument, as `apptainer build --build-arg` would")
    parser.add_argument("--out", type=Path, help="render: write the build-arg file here instead of stdout; wheel: "
                        "the directory the wheel goes in")
    parser.add_argument("--all", action="store_true",
                        help="render: also the arguments the definition does not use (for host-side tools)")
    parser.add_argument("--mirror", type=Path, help="sources: the mirror directory")
    parser.add_argument("--check", action="store_true", help="sources: check the mirror, download nothing")
    parser.add_argument("--apptainer", default="apptainer", help="build: the Apptainer or SingularityCE executable")
    parser.add_argument("--build-arch", default=platform.machine(),
                        help="build: the image's architecture (default: this machine's)")
    parser.add_argument("--args-file", help="build: the rendered --build-arg-file")
    parser.add_argument("--squashfs-args", default="", help="build: mksquashfs flags, where the release takes them")
    parser.add_argument("--extra", default="", help="build: more `apptainer build` flags, one string (--extra=...)")
    parser.add_argument("--dry-run", action="store_true", help="build: print the command instead of running it")
    return parser


def _summary(args: Dict[str, str], flavour: str, out: str) -> str:
    pinned = {k: v for k, v in args.items() if k.endswith(("_VERSION", "_TAG", "_SUITE"))}
    width = max(map(len, pinned))
    lines = [f"image      app-{args['FLAVOUR']}-{args['ARCH']} ({flavour})",
             f"bootstrap  {args['BOOTSTRAP']}: {args['BASE']}",
             f"digest     {args['BASE_DIGEST']}",
             f"revision   {args['GIT_REVISION']}",
             "pinned (containers/versions.env):",
             *(f"  {key:<{width}}  {value}" for key, value in pinned.items()),
             f"build      apptainer build --fakeroot --build-arg-file {out} <out.sif> containers/app.def"]
    return "\n".join(lines)


def _joined(command: List[str]) -> str:
    """The command as a shell would take it (shlex.join, which Python 3.6 lacks)."""
    return " ".join(shlex.quote(word) for word in command)


def _sources(args: Dict[str, str], flavour: str, mirror: Optional[Path], *, check_only: bool) -> int:
    if mirror is None:
        raise UsageError("sources needs --mirror DIR, e.g. --mirror build/sources")
    sources = pinned_sources(args)
    if check_only:
        check_mirror_owners(mirror, args["ARCH"])
        check_mirror(sources, mirror, args["ARCH"])
        check_debs(mirror, flavour)
    else:  # checks each file it keeps or fetches
        for archive in fill_mirror(sources, mirror):
            print(f"fetched {mirror / archive}")
    print(f"ok: {mirror} holds {', '.join(source.archive for source in sources)} with their pinned sha256")
    return exitcodes.OK


def _check_host(args: Dict[str, str], options: argparse.Namespace) -> int:
    if args["BOOTSTRAP"] == "localimage":
        check_base_arch(Path(args["BASE"]), args["ARCH"])
    warnings, notes = check_host(read_runtime(options.apptainer), Host.probe(), target_arch=options.build_arch,
                                 needs=build_needs(args), local_base=args["BOOTSTRAP"] == "localimage",
                                 extra=tuple(shlex.split(options.extra)))
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for note in notes:
        print(note)
    return exitcodes.OK


def _pull_base(args: Dict[str, str], options: argparse.Namespace) -> int:
    if args["BOOTSTRAP"] != "docker":
        raise UsageError(f"--arch {options.arch} has no registry base to pull (its base is {args['BASE']}); "
                         "pull one for a CUDA flavour, e.g. --arch x86_64 or --arch aarch64")
    if options.out is None:
        raise UsageError("pull-base needs --out FILE, e.g. --out build/ngc-pytorch-aarch64.sif")
    runtime = read_runtime(options.apptainer)
    command = pull_command(runtime, docker_arch=args["DOCKER_ARCH"], out=str(options.out),
                           ref=f"docker://{args['BASE']}")
    if not options.dry_run:
        print(check_space(runtime, Host.probe(), pull_needs(args), (), what="pull"))
    print(_joined(command), flush=True)
    if not options.dry_run:
        options.out.parent.mkdir(parents=True, exist_ok=True)
        os.execvp(command[0], command)
    return exitcodes.OK


def _build(args: Dict[str, str], options: argparse.Namespace) -> int:
    if not (options.args_file and options.out):
        raise UsageError("build needs --args-file FILE and --out SIF, e.g. --args-file build/x86_64.args "
                         "--out build/app.sif.tmp")
    command = build_command(read_runtime(options.apptainer), target_arch=options.build_arch,
                            host_arch=platform.machine(), docker_arch=args["DOCKER_ARCH"],
                            args_file=options.args_file, squashfs_args=options.squashfs_args,
                            extra=tuple(shlex.split(options.extra)), out=str(options.out),
                            definition=os.path.relpath(options.definition))
    print(_joined(command), flush=True)
    if not options.dry_run:
        os.execvp(command[0], command)
    return exitcodes.OK


def _wheel(out: Optional[Path]) -> int:
    if out is None:
        raise UsageError("wheel needs --out DIR, e.g. --out build/wheelhouse-x86_64")
    print(f"built {build_wheel(CONTAINERS_DIR.parent, out)}")
    return exitcodes.OK


@exits_cleanly
def main(argv: Optional[List[str]] = None) -> int:
    options = _parser().parse_args(argv)
    if options.command == "build-job":
        return buildjob.main(os.environ)
    if options.command == "wheel":
        return _wheel(options.out)
    containers_dir = options.definition.resolve().parent
    args = render_build_args(options.arch, containers_dir, parse_overrides(options.set))
    try:
        template = options.definition.read_text()
    except OSError as err:
        raise UsageError(f"cannot read the definition {options.definition}: {err.strerror}") from None
    if options.command == "sources":
        return _sources(args, options.arch, options.mirror, check_only=options.check)
    if options.command == "check-host":
        return _check_host(args, options)
    if options.command == "pull-base":
        return _pull_base(args, options)
    if options.command == "build":
        return _build(args, options)
    if options.command == "render":
        text = format_build_args(args, list(args) if options.all else placeholders(template))
        if options.out:
            options.out.parent.mkdir(parents=True, exist_ok=True)
            options.out.write_text(text)
        else:
            sys.stdout.write(text)
        return exitcodes.OK
    lint_definition(template, args, containers_dir)
    if options.command == "lint":
        print(f"ok: {options.definition} renders for --arch {options.arch} and keeps every invariant")
    else:
        print(_summary(args, options.arch, str(options.out or f"build/{options.arch}.args")))
    return exitcodes.OK


if __name__ == "__main__":
    sys.exit(main())
