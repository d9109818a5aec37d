"""A line break inside a Chinese paragraph is dropped; between English words, and in code, kept."""

from fieldnotes.languages import join_cjk_lines


def test_joins_lines_between_chinese_characters_and_after_chinese_punctuation():
    assert join_cjk_lines("<p>把值写进\n一个张量，\n<code>x</code></p>") == \
        "<p>把值写进一个张量，<code>x</code></p>"


def test_keeps_breaks_between_latin_words_and_inside_pre():
    html = "<p>scatter\nwrites 张量\nvalues</p><pre>中\n文</pre>"
    assert join_cjk_lines(html) == html
