"""What a note type's templates and CSS run or fetch (issue 45): each kind of part is
found in its obfuscated forms too and removed with every other character kept; templates
without such parts, and what real shared decks hold besides them, are left as they are."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.anki.notetypes import note_type
from deckbuilder.anki.notetypes.active_content import (
    Part,
    active_parts,
    counted,
    note_type_parts,
    without_active_parts,
)
from deckbuilder.model import NoteKind

S, E, JS, DATA, REMOTE, H = (
    Part.SCRIPT,
    Part.EVENT_HANDLER,
    Part.SCRIPT_ADDRESS,
    Part.DATA_ADDRESS,
    Part.REMOTE_ADDRESS,
    Part.HIDDEN_MARKUP,
)

# (template, the template without its parts, the parts found)
TEMPLATES = [
    ("<script>alert(1)</script>{{Front}}", "{{Front}}", [S]),
    ("{{Front}}<SCRIPT >x</SCRIPT >", "{{Front}}", [S]),
    ("<ScRiPt\nsrc='https://cdn/x.js'></script\t>{{Front}}", "{{Front}}", [S]),
    ("<script>never closed {{Front}}", "", [S]),
    ("<img src=x onerror=alert(1)>{{Front}}", "<img src=x >{{Front}}", [E]),
    ("<img src=x onError =\n 'alert(1)'>", "<img src=x >", [E]),
    ("<img/src=x/onerror=alert(1)>", "<img/src=x/onerror=alert(1)>", []),  # src's value
    ('<img src=x "a"onerror=y>', '<img src=x "a"onerror=y>', []),  # one attribute name
    ('<img src="x"onerror="y">', '<img src="x">', [E]),
    ("<body onload=go()>", "<body >", [E]),
    ("<svg><animate onbegin=x /></svg>", "<svg><animate  /></svg>", [E]),
    ('<a href="javascript:go()">a</a>', "<a >a</a>", [JS]),
    ('<a href="JaVaScRiPt:go()">a</a>', "<a >a</a>", [JS]),
    ('<a href="java&#x73;cript:go()">a</a>', "<a >a</a>", [JS]),
    ('<a href="&#106;avascript:go()">a</a>', "<a >a</a>", [JS]),
    ('<a href="javascript&colon;go()">a</a>', "<a >a</a>", [JS]),
    ('<a href=" \x01java\tscri\npt:go()">a</a>', "<a >a</a>", [JS]),
    ("<a HREF=vbscript:go()>a</a>", "<a >a</a>", [JS]),
    ('<form action="javascript:x"><button formaction=javascript:y>', "<form ><button >", [JS, JS]),
    ('<svg><a xlink:href="javascript:x">a</a></svg>', "<svg><a >a</a></svg>", [JS]),
    (
        '<svg><set attributeName=href to="javascript:x"/></svg>',
        "<svg><set attributeName=href /></svg>",
        [JS],
    ),
    ('<a href="data:text/html,<script>x</script>">a</a>', "<a >a</a>", [DATA]),
    (
        '<img src="data:image/png;base64,iVBORw0KGgo=">',
        '<img src="data:image/png;base64,iVBORw0KGgo=">',
        [],
    ),
    (
        '<link rel="stylesheet" href="https://cdn.example/x.css">',
        '<link rel="stylesheet" >',
        [REMOTE],
    ),
    ('<link rel="stylesheet" href="_local.css">', '<link rel="stylesheet" href="_local.css">', []),
    ('<img src="//example.com/x.png">', "<img >", [REMOTE]),
    ('<img src="\\\\example.com\\x.png">', "<img >", [REMOTE]),
    ('<img src="HTTPS://example.com/{{Word}}.png">', "<img >", [REMOTE]),
    ('<img srcset="a.png 1x, https://example.com/b.png 2x">', "<img >", [REMOTE]),
    ('<audio src="http://example.com/a.mp3"></audio>', "<audio ></audio>", [REMOTE]),
    ('<video poster="https://example.com/p.png"></video>', "<video ></video>", [REMOTE]),
    ('<a href="https://en.wiktionary.org/wiki/{{Front}}">look up</a>', None, []),
    ('<img src="{{Picture}}">', None, []),
    ('<iframe src="https://example.com"><b>x</b></iframe>{{Front}}', "{{Front}}", [Part.EMBEDDED]),
    ("<object data=x.swf></object>", "</object>", [Part.EMBEDDED]),
    ("<embed src=x.swf>", "", [Part.EMBEDDED]),
    ('<meta http-equiv="Refresh" content="0;url=https://x">', "", [Part.REFRESH]),
    ('<meta charset="utf-8">', None, []),
    ('<base href="https://example.com/">', "", [Part.BASE]),
    (
        '<style>@import url("https://fonts.example/x.css"); .a{color:red}</style>',
        "<style> .a{color:red}</style>",
        [Part.CSS_IMPORT],
    ),
    (
        "<style>.a{background:url(https://example.com/x.png) no-repeat}</style>",
        "<style>.a{background: no-repeat}</style>",
        [Part.CSS_ADDRESS],
    ),
    (
        "<div style=\"background:url('https://example.com/x.png');color:red\">",
        '<div style="background:;color:red">',
        [Part.CSS_ADDRESS],
    ),
    (
        '<div style="background:url(&quot;https://example.com/x.png&quot;)">',
        "<div >",
        [Part.CSS_ADDRESS],
    ),
    # Anki fills the {{...}} tags first: each is read as text, and as an empty field.
    ("<scr{{Front}}ipt>alert(1)</script>", "", [S]),
    ("<{{Front}}script>alert(1)</script>", "", [S]),
    ("<img src=x on{{Event}}error=alert(1)>", "<img src=x >", [E]),
    ("<img src=x {{#F}}onerror=alert(1){{/F}}>", "<img src=x {{#F}}{{/F}}>", [E]),
    ('<a href="java{{F}}script:x">a</a>', "<a >a</a>", [JS]),
    ("{{#Hint}}<script>x</script>{{/Hint}}", "{{#Hint}}{{/Hint}}", [S]),
    # Inside <svg> or <math>, a <style>'s content is markup and a CDATA section is text
    # up to "]]>": one that holds a tag there goes whole.
    ("<svg><style><img src=x onerror=alert(1)></style></svg>", "<svg></svg>", [H]),
    ("<svg><title><style>@import 'https://x'</style></title></svg>", "<svg></svg>", [H]),
    ("<![CDATA[><img src=x onerror=alert(1)>]]>", "", [H]),
    ("<svg><![CDATA[<!--]]><script>alert(1)</script>-->", "<svg><![CDATA[<!--]]>-->", [S]),
    ("<svg><style><![CDATA[ .a{color:red} ]]></style></svg>", None, []),
    ("<style><!-- .a{color:red} --></style>{{Front}}", None, []),
    # Comments hide nothing, and their ends are the browser's.
    ("<!-- <script>x</script> -->{{Front}}", None, []),
    ("<!--> <script>x</script>", "<!--> ", [S]),
    ("<!-- --!> <script>x</script>", "<!-- --!> ", [S]),
    ("<!-- {{Front}} --> <b>{{Back}}</b>", None, []),
    # A removed part that joins its neighbours into a new one: removed again.
    ("<<script></script>script>alert(1)</script>", "", [S, S]),
    ("<<script></script>img src=x onerror=alert(1)>", "<img src=x >", [S, E]),
    # Inside a tag, "<script>" is part of an attribute's name: nothing runs.
    ("<img src=x o<script></script>nerror=alert(1)>", None, []),
]


@pytest.mark.parametrize(("template", "cleaned", "parts"), TEMPLATES)
def test_each_part_is_found_and_only_it_removed(
    template: str, cleaned: str | None, parts: list[Part]
) -> None:
    result = without_active_parts(template)
    assert result.clean
    assert [found.part for found in result.found] == parts
    assert result.text == (template if cleaned is None else cleaned)
    assert active_parts(result.text) == ()


CSS = [
    (
        "@import url(https://fonts.googleapis.com/css?family=Roboto);\n.card{color:black}",
        "\n.card{color:black}",
        [Part.CSS_IMPORT],
    ),
    ('@import "https://x.example/a.css" screen;.a{}', ".a{}", [Part.CSS_IMPORT]),
    ("@IMPORT 'javascript:x';", "", [Part.CSS_IMPORT]),
    ("@\\69mport '//x.example/a.css';", "", [Part.CSS_IMPORT]),
    ('@import "_local.css";', None, []),
    (".a{background:u\\72l(https://x.example/y.png)}", ".a{background:}", [Part.CSS_ADDRESS]),
    (".a{background:URL( 'https://x.example/y.png' )}", ".a{background:}", [Part.CSS_ADDRESS]),
    (
        '.a{background:image-set("https://x.example/1.png" 1x, "b.png" 2x)}',
        '.a{background:image-set( 1x, "b.png" 2x)}',
        [Part.CSS_ADDRESS],
    ),
    (
        '@font-face{font-family:F;src:url("https://fonts.example/f.woff2") format("woff2")}',
        '@font-face{font-family:F;src: format("woff2")}',
        [Part.CSS_ADDRESS],
    ),
    (".a{background:url(_local.png)} .b{background:url(data:image/png;base64,AA==)}", None, []),
    ('.a::after{content:"url(https://x.example)"} /* url(https://x.example) */', None, []),
    (".card{}</style><script>alert(1)</script>", ".card{}</style>", [S]),
    # Anki's own "Basic" CSS.
    (
        ".card {\n    font-family: arial;\n    font-size: 20px;\n    text-align: center;\n"
        "    color: black;\n    background-color: white;\n}\n",
        None,
        [],
    ),
]


@pytest.mark.parametrize(("css", "cleaned", "parts"), CSS)
def test_each_part_of_css_is_found_and_only_it_removed(
    css: str, cleaned: str | None, parts: list[Part]
) -> None:
    result = without_active_parts(css, css=True)
    assert result.clean
    assert [found.part for found in result.found] == parts
    assert result.text == (css if cleaned is None else cleaned)


def test_deckbuilders_own_note_types_show_what_they_run() -> None:
    """Multiple choice and typed answers are scripts of deckbuilder's own (never carried
    from a collection); the others run nothing."""
    assert {found.part for found in note_type_parts(note_type(NoteKind.MCQ))} == {S}
    for kind in (NoteKind.BASIC, NoteKind.BASIC_REVERSED, NoteKind.CLOZE):
        assert note_type_parts(note_type(kind)) == ()


def test_parts_are_counted_by_kind_and_shown_briefly() -> None:
    result = without_active_parts(
        "<script>" + "x" * 500 + "</script><img src=a onerror=b><script>y</script>"
    )
    assert counted(result.found) == "2 scripts, 1 event handler"
    assert result.found[0].excerpt == "<script>" + "x" * 51 + "…"


_BITS = st.sampled_from(
    [
        "<",
        ">",
        "/",
        "=",
        '"',
        "'",
        " ",
        "\n",
        "{{",
        "}}",
        "{{F}}",
        "<!--",
        "-->",
        "<script>",
        "</script>",
        "<style>",
        "</style>",
        "<img",
        " src=x",
        " onerror=y",
        " href=",
        "javascript:",
        "https://h/",
        "url(",
        ")",
        "@import ",
        "<svg>",
        "<iframe>",
        "&#x73;",
        "a",
    ]
)


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(_BITS, max_size=30), css=st.booleans())
def test_cleaning_only_removes_and_leaves_nothing_to_find(parts: list[str], css: bool) -> None:
    """Any text: the cleaned text is the text less some spans (every other character in
    order), a clean one holds nothing more to find, and cleaning it again changes nothing."""
    text = "".join(parts)
    result = without_active_parts(text, css=css)
    kept = iter(text)
    assert all(char in kept for char in result.text)  # a subsequence of the text
    if result.clean:
        assert active_parts(result.text, css=css) == ()
        assert without_active_parts(result.text, css=css).text == result.text
    if not result.found:
        assert result.text == text
