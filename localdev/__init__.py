"""Local development: the playground (``python -m localdev.playground``, i.e. ``scripts/run``) and its
parts: a fake Telegram Bot API server (``fake_telegram``) and its flood control (``flood``), Update
builders (``updates``), the single webhook worker (``webhook``), simulated players (``autoplay``) and how
they decide (``policy``), the long-polling loop for real bot mode (``poller``), the local AWS server
answering one request at a time (``serial_moto``), the table made from template.yaml (``tables``) and the
wake-up queue's consumer standing in for Lambda's event source mapping (``wake_consumer``), the web page (``web``, ``static/``) and its Telegram HTML renderer (``tg_html``)."""
