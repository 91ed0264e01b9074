from __future__ import annotations

from translate_server.translation.markup import parse_html

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
    assert document.pieces == ["My page", "Hello & welcome", "Some", "bold", "text.",
                               "Next line <3", "tail"]


def test_markup_is_kept_byte_for_byte() -> None:
    document = parse_html(PAGE, 1000)
    upper = document.assemble([piece.upper() for piece in document.pieces])
    expected = (PAGE.replace("My page", "MY PAGE")
                .replace("Hello &amp; welcome", "HELLO &amp; WELCOME")
                .replace("Some <b>bold</b> text.<br>Next line &lt;3",
                         "SOME <b>BOLD</b> TEXT.<br>NEXT LINE &lt;3")
                .replace("/> tail", "/> TAIL"))
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
    from translate_server.translation.markup import parse_html

    xml = '<doc><script>a &lt; b</script><br>c</br><code lang="x">d</code><keep>e</keep></doc>'
    document = parse_html(xml, 1000, xml=True, ignore_tags=("keep",))
    # No element is special in XML (no raw-text <script>, no void <br>): only <keep> is kept.
    assert document.pieces == ["a < b", "c", "d"]
    assert document.assemble(["x < y", "C", "D"]) == (
        '<doc><script>x &lt; y</script><br>C</br><code lang="x">D</code><keep>e</keep></doc>')
    html = parse_html("<p>a <code>b</code> <i>c</i></p>", 1000, ignore_tags=("I",))
    assert html.pieces == ["a"]
