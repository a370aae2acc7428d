"""Python source as the tokens winnowing compares: what survives renaming, re-commenting and re-spacing."""

from __future__ import annotations

import io
import keyword
import tokenize

from grader.records import record

# Identifiers become one class, so renaming a variable changes nothing; literals keep only their kind.
NAME, NUMBER, STRING, END_OF_STATEMENT = "N", "1", "S", ";"
_DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
            tokenize.ENDMARKER, tokenize.TYPE_COMMENT}
# Python 3.12 splits an f-string into pieces (and its expressions into tokens): it stays one string literal.
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


@record
class Token:
    text: str  # the normalised token: a keyword, an operator, or N, 1, S, ;
    line: int  # 1-based, in the original file
    end_line: int


def normalised_tokens(source: str) -> list[Token]:
    """The file's tokens, normalised. A file that stops tokenizing (a syntax error, an unclosed string) keeps
    the tokens read up to that point: a broken submission is still compared, never a traceback."""
    tokens: list[Token] = []
    depth = 0  # how many f-strings (3.12+) the current token is inside
    try:
        for kind, text, (line, _), (end_line, _), _ in tokenize.generate_tokens(io.StringIO(source).readline):
            if kind == _FSTRING_START:
                depth += 1
                if depth == 1:
                    tokens.append(Token(STRING, line, end_line))
            elif kind == _FSTRING_END:
                depth -= 1
            if depth or kind == _FSTRING_END:
                continue
            if kind in _DROPPED:
                continue
            tokens.append(Token(_normalise(kind, text), line, end_line))
    except (tokenize.TokenError, SyntaxError):
        pass
    return tokens


def _normalise(kind: int, text: str) -> str:
    if kind == tokenize.NAME:
        return text if keyword.iskeyword(text) else NAME
    if kind == tokenize.NUMBER:
        return NUMBER
    if kind == tokenize.STRING:
        return STRING
    if kind == tokenize.NEWLINE:
        return END_OF_STATEMENT
    return text
