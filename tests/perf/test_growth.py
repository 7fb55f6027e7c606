"""Cost grows linearly with the command's size: counted in Python function calls (a
deterministic measure, not a timing), for sizes that double. Over the documented limit
(limits.max_command_length) a command is refused at once with GW003."""

import sys

import pytest

SHAPES = {
    "one long word": lambda n: "echo " + "a" * (n - 5),
    "many arguments": lambda n: "ls" + " src/app.py" * ((n - 2) // 11),
    "long quoted text": lambda n: 'echo "' + 'ab\\"c ' * ((n - 7) // 6) + '"',
    "&& list": lambda n: " && ".join(["ls"] * (n // 6)),
    "pipeline": lambda n: " | ".join(["cat"] * (n // 6)),
    "newlines": lambda n: "\n".join(["ls"] * (n // 3)),
    "heredoc commit": lambda n: ("git commit -m \"$(cat <<'EOF'\n" + "line of text\n" * (n // 13)
                                 + "EOF\n)\""),
}


def _calls(judge, command) -> int:
    from gateway.validator import phase2_syntax

    phase2_syntax._MEMO.clear()
    phase2_syntax._MEMO_LONG.clear()
    count = 0

    def prof(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(prof)
    try:
        judge(command)
    finally:
        sys.setprofile(None)
    return count


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_linear_in_size(judge, shape):
    make = SHAPES[shape]
    judge(make(512))  # warm: lazy imports and compiled patterns are not per-call work
    small, big = _calls(judge, make(2048)), _calls(judge, make(8192))
    # 4x the input: linear is ~4x the calls; quadratic would be ~16x
    assert big <= 5 * small, (shape, small, big)


def test_over_the_limit_is_refused_with_a_reason(judge, policy):
    v = judge("ls " + "a" * (100 * 1024))
    assert v.code == "GW003" and "max_command_length" in v.message
    assert policy.max_command_length < 100 * 1024


def test_deep_nesting_does_not_blow_the_stack(judge):
    v = judge("echo " + "$(" * 3000 + "x" + ")" * 3000)
    assert str(v.decision) != "allow"
