"""The ``mobster`` command: parses, calls the library, renders. No logic the library lacks.

Start-up stays fast (``mobster --help`` well under 0.3 s): drivers, models and rich are imported
inside the commands that need them.
"""

from __future__ import annotations

import click

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mobster", prog_name="mobster")
def cli() -> None:
    """Mobster replay: end-to-end checks of iOS apps.

    A model-driven agent performs a check's plain-English steps until it passes once; later runs
    replay that path with zero model calls while the screen still matches. The verdict always
    comes from assertions on the accessibility tree.
    """


@cli.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False))
def demo(directory: str | None) -> None:
    """Run a sample project on the scripted phone: no key, no phone."""
    del directory
    click.echo("mobster demo is not built yet: it lands with the checks and CLI work (issue 5).")


def main() -> None:
    """The console script's entry point."""
    cli()
