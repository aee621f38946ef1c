"""AWS access: our own small client (no boto3) and what the bot asks of AWS through it.

* ``client``: the JSON-over-HTTPS protocol of DynamoDB and EventBridge Scheduler, retries and errors;
  checked against botocore by the tests (frozen: fix, don't grow);
* ``shapes``: what the client takes and gives (a request's parameters, a DynamoDB answer's fields);
* ``transport``: one kept-alive HTTP/1.1 connection per thread, with the invocation's deadline;
* ``signing``: Signature Version 4, credentials, region and endpoints (botocore's credential chain
  only when the environment has none: a developer's profile);
* ``dynamo``: the DynamoDB implementation of ``gamebot.storage.store.Repository``;
* ``scheduler_api``: the two EventBridge Scheduler operations the timers use;
* ``runtime_sdk``: clients of the Lambda runtime's botocore for what our client does not speak (the
  wake-up queue's SQS, the secrets' SSM), made on first use.

May import: ``gamebot.storage`` (the repository interface, how a body is packed), ``gamebot.environment``
(the settings); botocore (lazily: ``signing``, ``runtime_sdk``). Nothing here knows Telegram, the engine or the game.
"""
