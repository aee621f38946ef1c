"""A character added the way docs/ENGINE.md ("Adding a character") describes: one plug-in file
(``squire.py``) and its catalog entries (``catalog.json``), played through the service by
``tests/unit/test_plugin_example.py``. Registered only inside that test."""
