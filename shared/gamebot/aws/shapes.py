"""The shapes of what the AWS client takes and gives, as boto3's client has them: a request's parameters,
the fields of a DynamoDB answer the bot reads (an item's values: ``gamebot.storage.packing``), and the
client ``gamebot.aws.dynamo`` needs (ours, ``gamebot.aws.client.DynamoDB``, or boto3's)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, TypedDict

from gamebot.storage.packing import Record

# A request's parameters are boto3's keyword arguments: only written out (``client.to_json``) and shown to
# the hooks, never read back.
Params = Mapping[str, object]


class ItemAnswer(TypedDict, total=False):
    """One item of a TransactGetItems answer, or one reason of a cancelled transaction."""

    Item: Record
    Code: str
    Message: str


class Answer(TypedDict, total=False):
    """A DynamoDB answer, the fields the bot reads (an operation's others are there too, undeclared)."""

    Item: Record
    Attributes: Record
    Items: list[Record]
    LastEvaluatedKey: Record
    Responses: list[ItemAnswer] | dict[str, list[Record]]
    CancellationReasons: list[ItemAnswer]
    ResponseMetadata: dict[str, object]


class Client(Protocol):
    """boto3's low-level DynamoDB methods the repository calls (ours: ``gamebot.aws.client.DynamoDB``)."""

    def get_item(self, **params: object) -> Answer: ...
    def put_item(self, **params: object) -> Answer: ...
    def update_item(self, **params: object) -> Answer: ...
    def delete_item(self, **params: object) -> Answer: ...
    def transact_get_items(self, **params: object) -> Answer: ...
    def transact_write_items(self, **params: object) -> Answer: ...
