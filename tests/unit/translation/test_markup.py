from __future__ import annotations

from translate_server.translation.segmentation.markup import parse_html

PAGE = """<!DOCTYPE html>
<html lang="en"><head><title>My page</title><style>p { color: red }</style></head>
<body class=x>
  <h1 id='t' data-x="a&amp;b">Hello &amp; welcome</h1>
  <p>Some <b>bold</b> text.<br>Next line &lt;3</p>
  <!-- a comment -->
  <script>var s = "<p>not text</p>";</script>
  <p translate="no">Brand<span>Name</span></p><code>x = 1</code>
  <div class="a notranslate">Keep</div><pre>  keep  </pre>
  <img src=a.png alt="An image"/> tail
</body></html>"""


def test_text_nodes_are_the_pieces_unescaped() -> None:
    document = parse_html(PAGE, 1000)
    assert document.pieces == [
        "My page",
        "Hello & welcome",
        "Some",
        "bold",
        "text.",
        "Next line <3",
        "tail",
    ]


def test_markup_is_kept_byte_for_byte() -> None:
    document = parse_html(PAGE, 1000)
    upper = document.assemble([piece.upper() for piece in document.pieces])
    expected = (
        PAGE.replace("My page", "MY PAGE")
        .replace("Hello &amp; welcome", "HELLO &amp; WELCOME")
        .replace(
            "Some <b>bold</b> text.<br>Next line &lt;3", "SOME <b>BOLD</b> TEXT.<br>NEXT LINE &lt;3"
        )
        .replace("/> tail", "/> TAIL")
    )
    assert upper == expected


def test_translations_are_escaped() -> None:
    document = parse_html("<p>a</p>", 100)
    assert document.assemble(["<script>&"]) == "<p>&lt;script&gt;&amp;</p>"


def test_long_text_nodes_are_split() -> None:
    text = "One sentence here. " * 20
    document = parse_html(f"<p>{text}</p>", 40)
    assert len(document.pieces) > 5
    assert document.assemble(document.pieces) == f"<p>{text}</p>"


def test_fragments_and_unclosed_tags() -> None:
    document = parse_html("Hi <i>there<p>friend", 100)
    assert document.pieces == ["Hi", "there", "friend"]
    assert document.assemble(["A", "B", "C"]) == "A <i>B<p>C"


def test_xml_is_read_as_xml() -> None:
    from translate_server.translation.segmentation.markup import parse_html

    xml = '<doc><script>a &lt; b</script><br>c</br><code lang="x">d</code><keep>e</keep></doc>'
    document = parse_html(xml, 1000, xml=True, ignore_tags=("keep",))
    # No element is special in XML (no raw-text <script>, no void <br>): only <keep> is kept.
    assert document.pieces == ["a < b", "c", "d"]
    assert document.assemble(["x < y", "C", "D"]) == (
        '<doc><script>x &lt; y</script><br>C</br><code lang="x">D</code><keep>e</keep></doc>'
    )
    html = parse_html("<p>a <code>b</code> <i>c</i></p>", 1000, ignore_tags=("I",))
    assert html.pieces == ["a"]


# -- regressions: what the standard library's parser got wrong ---------------------------------
def test_line_break_characters_do_not_shift_the_markup() -> None:
    # \x0b, \x1c and \u2028 end a line for str.splitlines but not for html.parser's counting:
    # offsets drifted, so tags were translated as text and text kept as markup.
    page = "<p>one\x0btwo</p>\n\x1c<b title='keep me'>three\u2028four</b>\r\n<i>five</i>\x85"
    document = parse_html(page, 1000)
    assert document.pieces == ["one\x0btwo", "three\u2028four", "five"]
    assert document.assemble([p.upper() for p in document.pieces]) == (
        "<p>ONE\x0bTWO</p>\n\x1c<b title='keep me'>THREE\u2028FOUR</b>\r\n<i>FIVE</i>\x85"
    )


def test_translate_no_is_case_insensitive() -> None:
    for attribute in ('translate="NO"', "TRANSLATE=No", "translate='no'"):
        document = parse_html(f"<p {attribute}>Brand <b>Name</b></p><p>text</p>", 1000)
        assert document.pieces == ["text"], attribute


def test_an_unterminated_comment_runs_to_the_end_as_markup() -> None:
    for tail in ("<!-- not closed <p>text</p>", "<!--", "<!-- a -- b"):
        document = parse_html(f"<p>Hello</p>{tail}", 1000)
        assert document.pieces == ["Hello"]
        assert document.assemble(["HALLO"]) == f"<p>HALLO</p>{tail}"


def test_unterminated_constructs_are_markup_to_the_end_once() -> None:
    # Each of these made the old parser search to the end of the document from every `<`.
    for unit in ('<a b="', "<!--", "<![CDATA[", "<?", "</a", "<!x"):
        page = "<p>Hi</p>" + unit * 4000
        document = parse_html(page, 1000)
        assert document.pieces == ["Hi"], unit
        assert document.assemble(document.pieces) == page


def test_bare_less_than_signs_are_text() -> None:
    document = parse_html("a < b <3 <<< c", 1000)
    assert document.pieces == ["a < b <3 <<< c"]
    assert document.assemble(["x < y"]) == "x &lt; y"


def test_unmatched_closing_tags_close_nothing() -> None:
    page = "<code>" + "<b>" * 3000 + "x" + "</i>" * 3000 + "</code><p>y</p>"
    assert parse_html(page, 1000).pieces == ["y"]


def test_raw_text_elements_hold_no_markup() -> None:
    document = parse_html(
        "<title>A <b> title</title><script>if (a<b) x = '</p>'</script>"
        "<textarea><p>kept</p></textarea><p>end</p>",
        1000,
    )
    assert document.pieces == ["A <b> title", "end"]


def test_entities_are_spelled_again_in_a_translation() -> None:
    document = parse_html("<p>a&nbsp;b &#169; 2024 &mdash; c &amp; d</p>", 1000)
    assert document.pieces == ["a\xa0b © 2024 — c & d"]
    assert document.assemble(["x\xa0y © 2024 — z & w"]) == (
        "<p>x&nbsp;y &#169; 2024 &mdash; z &amp; w</p>"
    )


def test_an_unchanged_piece_goes_back_as_it_was_written() -> None:
    page = "<p>It&#39;s &quot;here&quot; &lt;3</p>"
    document = parse_html(page, 1000)
    assert document.assemble(document.pieces) == page


def test_whitespace_spelled_as_entities_stays_around_a_translation() -> None:
    document = parse_html("<p>&nbsp;Price&#32;</p><p>&nbsp;</p>", 1000)
    assert document.pieces == ["\xa0Price "]
    assert document.assemble(["Preis"]) == "<p>&nbsp;Preis </p><p>&nbsp;</p>"


def test_translate_is_inherited_and_yes_turns_it_back_on() -> None:
    markup = (
        '<div translate="no">Acme <span translate="yes">is open</span> '
        '<b translate>daily</b> <i translate="maybe">Corp</i>'
        '<code translate="yes">x = 1</code></div>'
        '<p class="notranslate">Keep <em translate="YES">this too</em></p>'
        '<p translate="yes">Text</p>'
    )
    document = parse_html(markup, 1000)
    # An invalid value inherits ("maybe": kept); code stays code whatever it says.
    assert document.pieces == ["is open", "daily", "this too", "Text"]


def test_translate_yes_means_nothing_in_xml_and_ignored_tags_stay_kept() -> None:
    markup = '<keep>a <t translate="yes">b</t></keep><t translate="no">c</t>'
    assert parse_html(markup, 1000, xml=True, ignore_tags=("keep",)).pieces == ["c"]
    assert parse_html(markup, 1000, ignore_tags=("keep",)).pieces == []
