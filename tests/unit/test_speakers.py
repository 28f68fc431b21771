"""Transcript speakers: who a ``Name: ...`` line names, and the line without the prefix."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mneme.core.speakers import speaker_of, split_speaker, strip_speaker


def test_a_transcript_line_names_its_speaker_and_loses_the_prefix() -> None:
    assert split_speaker("Dana Lee: I moved to Porto.") == ("Dana Lee", "I moved to Porto.")
    assert speaker_of("Dana Lee: I moved to Porto.") == "Dana Lee"
    assert strip_speaker("Dana Lee: I moved to Porto.") == "I moved to Porto."


@pytest.mark.parametrize(
    "line",
    [
        "Note: the server restarts at midnight.",
        "Update: the launch moved to May.",
        "Thanks: that helped.",
        "the user: lowercase is no name",
        "Dana moved to Porto.",
        "Dana:no space after the colon",
    ],
)
def test_a_label_or_a_plain_sentence_has_no_speaker(line: str) -> None:
    assert split_speaker(line) == (None, line)


@given(st.text(max_size=80))
def test_a_line_is_its_speakers_prefix_then_its_body(text: str) -> None:
    speaker, body = split_speaker(text)
    assert text.endswith(body)
    assert (speaker is None) == (body == text)
    if speaker is not None:
        assert speaker in text[: len(text) - len(body)]
