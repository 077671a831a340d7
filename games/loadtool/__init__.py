"""The load tool (issue #8): scripted guests play many games at once against a running site
and the move round trip is measured, beside the round trip of a bare echo socket.

- ``games.loadtool.client``: the scripted players (asyncio, ``websockets``): two guests get a
  game through a challenge link over HTTP (``http_setup``), then play legal moves chosen with
  ``games.engine`` over the game socket (``players``); and the echo sockets of the baseline.
- ``games.loadtool.runner``: runs N games (or N echo pairs) in one or more client processes,
  samples the CPU of the server processes with psutil and reports percentiles and errors.
- ``games.loadtool.stack``: starts the production-like stack (two Daphne processes, a Celery
  worker, Celery beat; DEBUG off, ``LOAD_ECHO=1``) on PostgreSQL and Redis.

Command line: ``python -m games.loadtool stack|run --help``; ``scripts/load`` starts the stack,
runs the measurement and stops it. Figures and commands: docs/performance.md, "Load".
The client part imports no Django: it only talks to the server over HTTP and WebSockets.
"""
