"""fieldnotes.outputs: an output block's <code> becomes <samp>; nothing else changes."""

from fieldnotes.outputs import as_samp

OUTPUT = ('<div class="language-text fn-output highlight" data-search-exclude="output"><span class="filename">'
          'Output</span><pre><span></span><code>tensor([1, 2])\nx &lt; y\n</code></pre></div>')
CODE = ('<div class="language-python highlight"><pre><span></span><code><span class="nb">print</span>'
        '<span class="p">(</span><span class="mi">1</span><span class="p">)</span>\n</code></pre></div>')


def test_an_output_becomes_samp_with_its_title_text_and_attributes():
    assert as_samp(OUTPUT) == ('<div class="language-text fn-output highlight" data-search-exclude="output">'
                               '<span class="filename">Output</span><pre><samp>tensor([1, 2])\nx &lt; y\n'
                               '</samp></pre></div>')


def test_code_blocks_and_text_around_are_left_as_they_are():
    page = f"<p>before</p>\n{CODE}\n{OUTPUT}\n<p>after <code>x</code></p>"
    assert as_samp(page) == page.replace(OUTPUT, as_samp(OUTPUT))
    assert as_samp(CODE) == CODE
