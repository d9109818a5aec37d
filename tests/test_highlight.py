"""fieldnotes.highlight: inside <code>, the spans of plain tokens give way to their text; nothing else changes."""

from fieldnotes.highlight import PLAIN_TOKENS, unwrap_plain_tokens

CODE = ('<div class="language-python highlight"><pre><span></span><code><span class="n">x</span> '
        '<span class="o">=</span> <span class="n">torch</span><span class="o">.</span><span class="n">zeros</span>'
        '<span class="p">(</span><span class="mi">3</span><span class="p">)</span><span class="w"> </span>'
        '<span class="c1"># a &lt;comment&gt;</span>\n<span class="hll"><span class="k">if</span> '
        '<span class="n">x</span><span class="p">:</span></span>\n</code></pre></div>')


def test_plain_token_spans_give_way_to_their_text_and_the_others_stay():
    assert unwrap_plain_tokens(CODE) == (
        '<div class="language-python highlight"><pre><span></span><code>x = torch.zeros('
        '<span class="mi">3</span>) <span class="c1"># a &lt;comment&gt;</span>\n<span class="hll">'
        '<span class="k">if</span> x:</span>\n</code></pre></div>')


def test_the_text_a_reader_copies_is_unchanged():
    import re

    def text(html: str) -> str:
        return re.sub(r"<[^>]+>", "", html)

    assert text(unwrap_plain_tokens(CODE)) == text(CODE)


def test_nothing_outside_code_is_touched():
    """A notebook cell (a <pre> without <code>) and prose keep their spans."""
    page = ('<p><span class="n">a name in prose</span></p><div class="highlight-ipynb"><pre><span></span>'
            '<span class="n">x</span><span class="o">=</span><span class="mi">1</span></pre></div>')
    assert unwrap_plain_tokens(page) == page


def test_every_code_element_on_a_page_is_unwrapped():
    inline = '<p>Use <code class="highlight"><span class="n">y</span><span class="p">.</span></code> and</p>'
    assert unwrap_plain_tokens(inline + CODE + inline).startswith('<p>Use <code class="highlight">y.</code> and</p>')
    assert all(f'class="{token}"' not in unwrap_plain_tokens(CODE + inline) for token in PLAIN_TOKENS)
