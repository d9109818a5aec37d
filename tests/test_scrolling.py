"""fieldnotes.scrolling: a code block with a line wider than the content column takes focus; no other does."""

from fieldnotes.scrolling import FITS, columns, focusable_when_wide

WIDE = "x" * (FITS + 1)


def block(code: str, attrs: str = "") -> str:
    return f'<div class="highlight"><pre><span></span><code{attrs}>{code}\n</code></pre></div>'


def test_a_block_with_a_line_wider_than_the_column_takes_focus():
    assert focusable_when_wide(block(f'a = 1\n<span class="s2">"{WIDE}"</span>')) == \
        block(f'a = 1\n<span class="s2">"{WIDE}"</span>', ' tabindex="0"')


def test_a_block_that_fits_and_inline_code_are_left_alone():
    fits = block('<span class="mi">1</span> ' + "y" * (FITS - 2))
    inline = f"<p><code>{WIDE}</code></p>"
    assert focusable_when_wide(fits + inline) == fits + inline


def test_markup_and_entities_do_not_count_but_wide_characters_count_twice():
    assert focusable_when_wide(block("&lt;" * FITS)) == block("&lt;" * FITS)
    chinese = "# " + "张量" * (FITS // 4 + 1)  # fewer characters than FITS, more columns
    assert len(chinese) < FITS < columns(chinese)
    assert 'tabindex="0"' in focusable_when_wide(block(chinese))


def test_a_block_that_already_has_a_tabindex_keeps_its_own():
    marked = block(WIDE, ' tabindex="-1"')
    assert focusable_when_wide(marked) == marked
