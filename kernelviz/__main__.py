"""``python -m kernelviz`` — the same as the ``kernelviz`` command."""

from .cli import main

raise SystemExit(main())
