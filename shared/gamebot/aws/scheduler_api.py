"""EventBridge Scheduler through our own AWS client (``gamebot.aws.client``): the two operations the timers use."""
from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping

from gamebot.aws.client import AWSError, Client, to_json
from gamebot.aws.shapes import Params
from gamebot.aws.signing import build_path, build_query


class Scheduler(Client):
    """EventBridge Scheduler (REST-JSON): the two operations the timers use. Like boto3, a missing
    ``ClientToken`` (the idempotency token) is generated."""

    SERVICE, SERVICE_ID, PREFIX = "scheduler", "SCHEDULER", "scheduler"

    def _rest(self, op: str, method: str, segments: list[str], query: list[tuple[str, str]],
              params: Params, body: Mapping[str, object] | None) -> dict[str, object]:
        started = time.perf_counter()
        payload = to_json(body) if body is not None else None
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        try:
            data, metadata = self._send(op, method, build_path(segments, self._prefix), build_query(query),
                                        headers, payload)
        except AWSError as error:
            self._failed(op, params, error, started)
            raise
        parsed = json.loads(data) if data.strip() else {}
        parsed["ResponseMetadata"] = metadata
        return self._done(op, params, parsed, started)

    def create_schedule(self, *, Name: str, **params: object) -> dict[str, object]:  # noqa: N803 - boto3's names
        body = {"ClientToken": str(uuid.uuid4()), **params}
        return self._rest("CreateSchedule", "POST", ["schedules", Name], [], {"Name": Name, **params}, body)

    def delete_schedule(self, *, Name: str, GroupName: str | None = None,  # noqa: N803 - boto3's names
                        ClientToken: str | None = None) -> dict[str, object]:  # noqa: N803
        query = [("clientToken", ClientToken or str(uuid.uuid4()))]
        if GroupName is not None:
            query.append(("groupName", GroupName))
        params = {"Name": Name, "GroupName": GroupName, "ClientToken": ClientToken}
        return self._rest("DeleteSchedule", "DELETE", ["schedules", Name], query,
                          {k: v for k, v in params.items() if v is not None}, None)
