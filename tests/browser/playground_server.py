"""The playground's page served on 127.0.0.1 for a browser test (each test module's ``playground`` fixture)."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from localdev.playground import Playground, serve


@contextmanager
def served(pg: Playground) -> Iterator[str]:
    """``pg`` started and its page served on a free port of 127.0.0.1: the page's URL; everything stopped
    after."""
    pg.start()
    server = serve(pg, 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        pg.stop()
