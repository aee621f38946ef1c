"""template.yaml keeps the decisions other parts of the bot rely on, and least privilege.

cfn-lint checks the CloudFormation schema (scripts/check_template) but not the inline IAM statements
of SAM functions, nor the project's own fixed names, so those are asserted here.
"""
from __future__ import annotations

import re
from typing import Any

import pytest

from tests.unit.cfn_template import resources, template

# The stack's own table, or the one the TableName parameter names (a restored backup).
GAME_TABLE_ARN = {"Fn::If": ["UseOwnTable", {"Fn::GetAtt": ["GameTable", "Arn"]}, {
    "Fn::Sub": "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${TableName}"}]}
GAME_TABLE_NAME = {"Fn::If": ["UseOwnTable", {"Ref": "GameTable"}, {"Ref": "TableName"}]}

SCHEDULES_OF_THE_GROUP = {
    "Fn::Sub": "arn:${AWS::Partition}:scheduler:${AWS::Region}:${AWS::AccountId}:schedule/${TimerScheduleGroup}/*"
}
WAKE_QUEUE_ARN = {"Fn::GetAtt": ["WakeQueue", "Arn"]}
DLQ_ARN = {"Fn::GetAtt": ["TimerDeadLetterQueue", "Arn"]}
# The SSM parameters holding the token and the webhook secret (tests/unit/test_template_secrets.py)
TOKEN_PARAMETER_ARN = {"Fn::Sub": "arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter"
                                  "${TelegramBotTokenParameter}"}
SECRET_PARAMETER_ARN = {"Fn::Sub": "arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter"
                                   "${TelegramWebhookSecretParameter}"}
READ_SECRETS = {"WebhookFunction": {"Sid": "ReadBotSecrets", "Effect": "Allow", "Action": "ssm:GetParameters",
                                    "Resource": [TOKEN_PARAMETER_ARN, SECRET_PARAMETER_ARN]},
                "TimerFunction": {"Sid": "ReadBotToken", "Effect": "Allow", "Action": "ssm:GetParameters",
                                  "Resource": TOKEN_PARAMETER_ARN}}


def _timeout(function: str) -> int:
    return resources[function]["Properties"].get("Timeout", template["Globals"]["Function"]["Timeout"])


@pytest.mark.parametrize("function", ["WebhookFunction", "TimerFunction"])
def test_game_functions_may_only_use_single_items_manage_timer_schedules_send_wake_ups_and_read_secrets(function):
    policies = resources[function]["Properties"]["Policies"]
    statements = [s for policy in policies for s in policy["Statement"]]
    assert statements == [
        {
            "Sid": "GameTableItems",
            "Effect": "Allow",
            "Action": [
                "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem",
                "dynamodb:ConditionCheckItem",
            ],
            "Resource": GAME_TABLE_ARN,
        },
        {
            "Sid": "ManageTimerSchedules",
            "Effect": "Allow",
            "Action": ["scheduler:CreateSchedule", "scheduler:DeleteSchedule"],
            "Resource": SCHEDULES_OF_THE_GROUP,
        },
        {
            "Sid": "PassSchedulerRole",
            "Effect": "Allow",
            "Action": "iam:PassRole",
            "Resource": {"Fn::GetAtt": ["SchedulerRole", "Arn"]},
            "Condition": {"StringEquals": {"iam:PassedToService": "scheduler.amazonaws.com"}},
        },
        {
            "Sid": "SendWakeUps",
            "Effect": "Allow",
            "Action": "sqs:SendMessage",
            "Resource": WAKE_QUEUE_ARN,
        },
        *([] if function == "WebhookFunction" else [{  # the timer function consumes the wake-up queue
            "Sid": "ConsumeWakeUps",
            "Effect": "Allow",
            "Action": ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"],
            "Resource": WAKE_QUEUE_ARN,
        }]),
        READ_SECRETS[function],  # (the timer function: the token alone)
    ]


def test_scheduler_role_is_assumed_only_by_this_schedule_group_and_only_invokes_the_timer_function():
    role = resources["SchedulerRole"]["Properties"]
    assert "Policies" not in role and "ManagedPolicyArns" not in role
    (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "scheduler.amazonaws.com"} and trust["Action"] == "sts:AssumeRole"
    assert trust["Condition"] == {"StringEquals": {
        "aws:SourceAccount": {"Ref": "AWS::AccountId"},
        "aws:SourceArn": {"Fn::GetAtt": ["TimerScheduleGroup", "Arn"]},
    }}
    policy = resources["SchedulerInvokePolicy"]
    assert policy["Type"] == "AWS::IAM::RolePolicy" and policy["Properties"]["RoleName"] == {"Ref": "SchedulerRole"}
    assert policy["Properties"]["PolicyDocument"]["Statement"] == [{
        "Sid": "InvokeTimerFunction",
        "Effect": "Allow",
        "Action": "lambda:InvokeFunction",
        "Resource": {"Fn::GetAtt": ["TimerFunction", "Arn"]},
    }]
    assert resources["TimerScheduleGroup"]["Type"] == "AWS::Scheduler::ScheduleGroup"


def test_timer_function_is_the_timer_handler_and_schedules_with_the_stacks_role_and_group():
    function = resources["TimerFunction"]["Properties"]
    assert function["CodeUri"] == "functions/timer/" and function["Handler"] == "app.lambda_handler"
    # EventBridge Scheduler invokes it (through SchedulerRole), and the wake-up queue (its event source
    # mapping, TimerWakeUps: no SAM event, which would attach a managed policy on every queue)
    assert "Events" not in function
    env = function["Environment"]["Variables"]
    assert set(env) == {"TABLE_NAME", "TELEGRAM_BOT_TOKEN_PARAMETER", "SECRETS_VERSION", "TELEGRAM_BOT_USERNAME",
                        "GAME_ARCHIVE_DAYS", "SCHEDULER_ROLE_ARN", "SCHEDULE_GROUP", "TIMER_DLQ_ARN", "WAKE_QUEUE_URL"}
    assert env["SCHEDULER_ROLE_ARN"] == {"Fn::GetAtt": ["SchedulerRole", "Arn"]}
    assert env["SCHEDULE_GROUP"] == {"Ref": "TimerScheduleGroup"}
    webhook = resources["WebhookFunction"]["Properties"]["Environment"]["Variables"]
    assert webhook["TIMER_FUNCTION_ARN"] == {"Fn::GetAtt": ["TimerFunction", "Arn"]}
    assert (webhook["SCHEDULER_ROLE_ARN"], webhook["SCHEDULE_GROUP"]) == (env["SCHEDULER_ROLE_ARN"], env["SCHEDULE_GROUP"])


# ---- the wake-up queue: precise wake-ups within 2 minutes -----------------------------------------------

def test_the_wake_queue_dead_letters_to_the_timers_dead_letter_queue_after_3_receives():
    queue = resources["WakeQueue"]
    assert queue["Type"] == "AWS::SQS::Queue" and "FifoQueue" not in queue["Properties"]  # per-message delays
    props = queue["Properties"]
    assert props["RedrivePolicy"] == {"deadLetterTargetArn": DLQ_ARN, "maxReceiveCount": 3}
    assert props["SqsManagedSseEnabled"] is True
    # A wake-up later than an hour is useless (the chat's next update finds what is due), but the longest
    # delay (900 s) and its 3 receives, a visibility timeout apart, must fit before it expires.
    assert props["MessageRetentionPeriod"] <= 3600
    assert props["MessageRetentionPeriod"] > 900 + 3 * props["VisibilityTimeout"]
    # The dead-letter queue keeps them longer than the wake queue (SQS expires a standard queue's message
    # from its first enqueue, wherever it is), and lets the wake queue name it (its default allowAll).
    dlq = resources["TimerDeadLetterQueue"]["Properties"]
    assert dlq["MessageRetentionPeriod"] > props["MessageRetentionPeriod"]
    assert dlq.get("RedriveAllowPolicy", {"redrivePermission": "allowAll"}) in (
        {"redrivePermission": "allowAll"}, {"redrivePermission": "byQueue", "sourceQueueArns": [WAKE_QUEUE_ARN]})
    assert (queue.get("DeletionPolicy"), queue.get("UpdateReplacePolicy")) == ("Delete", "Delete")


def test_the_wake_queue_hides_a_received_batch_for_6_times_the_timer_functions_timeout():
    # AWS's advice for a queue that invokes a function: a batch still worked on (or retried by Lambda)
    # must not become visible to another invocation.
    assert resources["WakeQueue"]["Properties"]["VisibilityTimeout"] >= 6 * _timeout("TimerFunction")


def test_the_wake_queue_invokes_the_timer_function_which_reports_the_wake_ups_that_failed():
    mappings = {name: body["Properties"] for name, body in resources.items()
                if body["Type"] == "AWS::Lambda::EventSourceMapping"}
    assert mappings == {"TimerWakeUps": {
        "EventSourceArn": WAKE_QUEUE_ARN,
        "FunctionName": {"Ref": "TimerFunction"},
        "BatchSize": 10,
        "MaximumBatchingWindowInSeconds": 0,  # a wake-up is due when it is visible: no waiting for a batch
        "FunctionResponseTypes": ["ReportBatchItemFailures"],  # only the failed ones are received again
        "Enabled": True,
    }}
    # No other consumer: no SAM SQS event anywhere (it would attach AWSLambdaSQSQueueExecutionRole, which
    # receives and deletes the messages of every queue of the account).
    assert [e for body in resources.values() for e in body.get("Properties", {}).get("Events", {}).values()
            if e["Type"] == "SQS"] == []


@pytest.mark.parametrize("function", ["WebhookFunction", "TimerFunction"])
def test_game_functions_know_the_wake_queue_and_may_only_send_to_it(function):
    assert resources[function]["Properties"]["Environment"]["Variables"]["WAKE_QUEUE_URL"] == {"Ref": "WakeQueue"}
    statements = [s for policy in resources[function]["Properties"]["Policies"] for s in policy["Statement"]]
    sqs = [s for s in statements if any(a.startswith("sqs:") for a in (
        [s["Action"]] if isinstance(s["Action"], str) else s["Action"]))]
    send = {"Sid": "SendWakeUps", "Effect": "Allow", "Action": "sqs:SendMessage", "Resource": WAKE_QUEUE_ARN}
    consume = {"Sid": "ConsumeWakeUps", "Effect": "Allow", "Resource": WAKE_QUEUE_ARN,
               "Action": ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"]}
    assert sqs == ([send] if function == "WebhookFunction" else [send, consume])  # this queue alone
    assert all(isinstance(policy, dict) for policy in resources[function]["Properties"]["Policies"])  # no managed one


def test_the_wake_queue_is_in_the_outputs():
    assert template["Outputs"]["WakeQueueUrl"]["Value"] == {"Ref": "WakeQueue"}


def test_template_names_match_the_scheduler_environment_variables():

    assert {"TIMER_FUNCTION_ARN", "SCHEDULER_ROLE_ARN", "SCHEDULE_GROUP"} <= set(
        resources["WebhookFunction"]["Properties"]["Environment"]["Variables"])


def test_the_functions_use_the_stacks_table_unless_table_name_names_another():
    assert template["Parameters"]["TableName"]["Default"] == ""
    assert template["Conditions"]["UseOwnTable"] == {"Fn::Equals": [{"Ref": "TableName"}, ""]}
    pattern = re.compile(template["Parameters"]["TableName"]["AllowedPattern"])
    assert pattern.match("") and pattern.match("avalon-bot-restored-2025-01-31") and not pattern.match("a b")
    for function in ("WebhookFunction", "TimerFunction"):
        assert resources[function]["Properties"]["Environment"]["Variables"]["TABLE_NAME"] == GAME_TABLE_NAME
    assert template["Outputs"]["GameTableName"]["Value"] == GAME_TABLE_NAME
    assert resources["GameTable"].get("Condition") is None  # naming another table never deletes the stack's


def test_table_has_string_pk_ttl_on_demand_and_pitr():
    table = resources["GameTable"]["Properties"]
    assert table["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert table["AttributeDefinitions"] == [{"AttributeName": "pk", "AttributeType": "S"}]
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


def test_webhook_route_is_post_webhook_on_http_api_v2():
    function = resources["WebhookFunction"]["Properties"]
    assert function["CodeUri"] == "functions/webhook/" and function["Handler"] == "app.lambda_handler"
    event = function["Events"]["Webhook"]
    assert event["Type"] == "HttpApi"
    assert event["Properties"] == {
        "ApiId": {"Ref": "WebhookApi"}, "Path": "/webhook", "Method": "POST", "PayloadFormatVersion": "2.0",
    }
    assert resources["WebhookApi"]["Type"] == "AWS::Serverless::HttpApi"
    assert template["Outputs"]["WebhookUrl"]["Value"]["Fn::Sub"].endswith("/webhook")


def test_webhook_function_environment_uses_fixed_names():
    own = resources["WebhookFunction"]["Properties"]["Environment"]["Variables"]
    shared = template["Globals"]["Function"]["Environment"]["Variables"]
    assert set(own) | set(shared) == {
        "TABLE_NAME", "TELEGRAM_BOT_TOKEN_PARAMETER", "TELEGRAM_WEBHOOK_SECRET_PARAMETER", "SECRETS_VERSION",
        "TELEGRAM_API_BASE_URL",
        "TELEGRAM_BOT_USERNAME", "LOG_LEVEL", "GAME_ARCHIVE_DAYS",
        "TIMER_FUNCTION_ARN", "SCHEDULER_ROLE_ARN", "SCHEDULE_GROUP", "TIMER_DLQ_ARN", "WAKE_QUEUE_URL", "STACK_NAME",
    }
    assert own["TABLE_NAME"] == GAME_TABLE_NAME
    assert template["Parameters"]["TelegramApiBaseUrl"]["Default"] == "https://api.telegram.org"


def test_functions_run_python312_on_x86_64_with_the_shared_layer():
    globals_ = template["Globals"]["Function"]
    assert (globals_["Runtime"], globals_["Architectures"]) == ("python3.12", ["x86_64"])
    layer = resources["SharedLayer"]
    assert layer["Properties"]["ContentUri"] == "shared/"
    assert layer["Metadata"]["BuildMethod"] == "python3.12"
    for name in ("WebhookFunction", "SetupWebhookFunction", "TimerFunction"):
        assert resources[name]["Properties"]["Layers"] == [{"Ref": "SharedLayer"}]


def test_every_function_log_group_has_retention():
    for function in ("WebhookFunction", "SetupWebhookFunction", "TimerFunction"):
        groups = [
            r for r in resources.values()
            if r["Type"] == "AWS::Logs::LogGroup"
            and r["Properties"]["LogGroupName"] == {"Fn::Sub": f"/aws/lambda/${{{function}}}"}
        ]
        assert len(groups) == 1 and groups[0]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}


def test_custom_resource_registers_this_stacks_webhook():
    webhook = resources["TelegramWebhook"]
    assert webhook["Properties"]["ServiceToken"] == {"Fn::GetAtt": ["SetupWebhookFunction", "Arn"]}
    assert webhook["Properties"]["WebhookUrl"] == template["Outputs"]["WebhookUrl"]["Value"]
    assert webhook["Properties"]["SecretTokenParameter"] == {"Ref": "TelegramWebhookSecretParameter"}
    # Log group before the first invocation; the route (function, permission, stage) before Telegram posts.
    assert set(webhook["DependsOn"]) == {
        "SetupWebhookLogGroup", "WebhookFunction", "WebhookFunctionWebhookPermission",
        "WebhookApiApiGatewayDefaultStage",
    }


def test_the_webhook_may_outlast_a_slow_bot_api_call_but_not_the_http_api_limit():
    timeout = resources["WebhookFunction"]["Properties"]["Timeout"]
    assert 10 < timeout < 30  # longer than one Bot API read timeout, shorter than the HTTP API integration limit


# ---- the bot's username: learned at deploy time (BotInfo), never at cold start ------------------------

USERNAME_FROM_STACK = {"Fn::If": ["AskTelegramForUsername", {"Fn::GetAtt": ["BotInfo", "Username"]},
                                  {"Ref": "TelegramBotUsername"}]}


def _names_in(node: Any) -> set[str]:
    """Every logical id a piece of the template points at (Ref, GetAtt, Sub, DependsOn)."""
    if isinstance(node, list):
        return set().union(*(_names_in(n) for n in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found: set[str] = set()
    for key, value in node.items():
        if key == "Ref" and isinstance(value, str):
            found.add(value)
        elif key == "Fn::GetAtt":
            found.add(value[0])
        elif key == "Fn::Sub":
            text, variables = (value, {}) if isinstance(value, str) else value
            found |= {m.split(".")[0] for m in re.findall(r"\$\{([^}!]+)\}", text)} - set(variables)
            found |= _names_in(variables)
        elif key == "DependsOn":
            found |= {value} if isinstance(value, str) else set(value)
        else:
            found |= _names_in(value)
    return found


def _dependencies() -> dict[str, set[str]]:
    """Resource -> the resources it needs. SAM's generated resources (``WebhookFunctionWebhookPermission``,
    ``WebhookApiApiGatewayDefaultStage``...) count as the resource whose name they extend; a function
    counts as needing what its events name (an over-approximation: it can only add cycles)."""
    def owner(name: str) -> str | None:
        if name in resources or name in template["Parameters"] or name.startswith("AWS::"):
            return name if name in resources else None
        return max((r for r in resources if name.startswith(r)), key=len, default=None)

    return {name: {o for n in _names_in(body) if (o := owner(n)) and o != name} for name, body in resources.items()}


def _needs(name: str, graph: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = [name]
    while todo:
        for dep in graph[todo.pop()] - seen:
            seen.add(dep)
            todo.append(dep)
    return seen


def test_an_empty_username_parameter_is_learned_at_deploy_time_by_the_bot_info_resource():
    assert template["Conditions"]["AskTelegramForUsername"] == {"Fn::Equals": [{"Ref": "TelegramBotUsername"}, ""]}
    assert template["Parameters"]["TelegramBotUsername"]["Default"] == ""
    info = resources["BotInfo"]
    assert info["Type"] == "Custom::TelegramBotInfo"  # functions/setup_webhook/app.py: BOT_INFO_TYPE
    assert info["Condition"] == "AskTelegramForUsername"  # a given username: nothing to ask
    assert info["Properties"] == {
        "ServiceToken": {"Fn::GetAtt": ["SetupWebhookFunction", "Arn"]},
        "ServiceTimeout": 120,
        "BotTokenParameter": {"Ref": "TelegramBotTokenParameter"},  # (the setup function reads the token there)
        "SecretsVersion": {"Ref": "SecretsVersion"},  # a new token (another bot?) asks again
        "ApiBaseUrl": {"Ref": "TelegramApiBaseUrl"},
    }
    assert info["DependsOn"] == "SetupWebhookLogGroup"  # its log group exists before the first invocation


@pytest.mark.parametrize("function", ["WebhookFunction", "TimerFunction"])
def test_game_functions_always_know_the_username_so_no_cold_start_asks_telegram(function):
    env = resources[function]["Properties"]["Environment"]["Variables"]
    assert env["TELEGRAM_BOT_USERNAME"] == USERNAME_FROM_STACK


def test_bot_info_needs_neither_the_webhook_nor_its_api_and_the_template_has_no_dependency_cycle():
    graph = _dependencies()
    assert _needs("BotInfo", graph) == {"SetupWebhookLogGroup", "SetupWebhookFunction", "SharedLayer"}
    assert "BotInfo" in _needs("WebhookFunction", graph) and "BotInfo" in _needs("TimerFunction", graph)
    assert {"WebhookFunction", "WebhookApi", "BotInfo"} <= _needs("TelegramWebhook", graph)
    cyclic = sorted(name for name in graph if name in _needs(name, graph))
    assert cyclic == []


def test_the_dependency_check_sees_a_cycle_through_bot_info():
    graph = _dependencies()
    graph["BotInfo"] = graph["BotInfo"] | {"WebhookFunction"}  # e.g. BotInfo DependsOn the webhook
    assert "BotInfo" in _needs("BotInfo", graph) and "WebhookFunction" in _needs("WebhookFunction", graph)


def test_the_setup_function_may_only_read_the_two_secrets():
    # getMe and setWebhook are Telegram calls: beyond its logs (SAM's basic execution role) the setup
    # function may read the token's and the secret's parameters, and CloudFormation invokes it through
    # ServiceToken like the webhook resource.
    (policy,) = resources["SetupWebhookFunction"]["Properties"]["Policies"]
    assert policy["Statement"] == [{**READ_SECRETS["WebhookFunction"]}]
    assert "Role" not in resources["SetupWebhookFunction"]["Properties"]
    assert not [r for r in resources.values() if r["Type"] == "AWS::Lambda::Permission"]
