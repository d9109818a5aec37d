/* The site's search, behind Material's search box: Material's UI posts the same messages to
 * this worker as to its own (SETUP with the index, QUERY with the typed text; READY and
 * RESULT back), so the box, the result list and highlighting stay Material's.
 *
 * Why not Material's lunr worker: it matches Chinese by the words jieba cut at build time,
 * while the reader's query is cut differently or not at all, and it ranks by a sum of term
 * scores, so a page with one common word can beat the page with all of them. Here:
 * - Chinese is matched as text: a query is cut with the index's own words (forward longest
 *   match, the words jieba cut from the pages and the readers' words of
 *   docs/search-aliases.<lang>.yml), and each word is looked up as a substring of the page,
 *   never as a single common character of it; an unknown run of characters counts by its
 *   character pairs.
 * - Ranking: first by how much of the query a page holds (words weighted by rarity), so the
 *   page with every word comes first and pages with some of them follow, by how many; a
 *   page that has the query's words together and in order gains a step, and a pasted error
 *   message (six words or more) counts its word pairs in order, so the page quoting it wins; pages
 *   whose front matter lowers `search.boost` (the pitfall index, tags) come after topic
 *   pages; then a BM25 score orders pages that hold as much of the query.
 * The index is Material's search_index.json, with readers' words added by
 * fieldnotes.search at build time (field "words"). Tested in tests/test_search.py. */
"use strict";

var SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
var HAN_RUN = /\p{Script=Han}+/gu;
var TOKEN = /[\p{Script=Han}]+|[a-z0-9_]+/gu;
var LATIN = /[a-z0-9_]+/g;
var MAX_WORD = 8;       // longest Chinese word the query cutter looks for
var EXACT = 0.3;         // added to the share of the query a page holds when it has the query's Latin words in order
var PHRASE = 6;         // Latin words from which a query is taken for a pasted message (word pairs count)
var FIELD_WEIGHT = { title: 3, text: 1, words: 2 };
var FIELDS = Object.keys(FIELD_WEIGHT);
var K1 = 1.2, B = 0.75; // BM25
var B_PAGE = 0.3;       // a long page is normalised less: a topic's own page is often the longest
var TITLE_BONUS = 1.5;  // per query word in a page's h1 or its readers' words, times the word's idf
var API_WEIGHT = 2;     // an API name of the site (fieldnotes.search: pitfalls' apis, headings' code) weighs this many words
var API_TITLE = 0.2;    // added to the share of the query a page holds when its title names the query's API
var STOP = new Set((
  "a an and are as at be but by can do does doing did for from how i if in into is it its me my " +
  "not of on or should so than that the their then there these this to too vs was we what when where " +
  "they them have has had been were being " +
  "which while who why will with would you your get got use using after before still only " +
  // a question's frame: "is there any way to", "I found such a strange thing", "help please"
  "any some way ways possible anyone someone something anything thing things such strange weird " +
  "question questions help please thanks thank hi hello about also just really very much many " +
  "want wanted need needs trying tried try know understand simple terms mean means seem seems " +
  "pytorch torch nn f functional " +
  "的 了 吗 呢 吧 啊 是 在 和 与 及 或 我 你 他 它 就 都 也 要 会 能 把 被 让 给 对 用 从 " +
  "为什么 怎么 怎么办 怎样 如何 什么 哪里 哪个 还是 一直 一个 这个 那个 时候 之后 之前 以后 " +
  "有 有什么 问题 请问 解决 " +
  // a question's frame: "大佬，请问……是什么原因造成的", "求助"
  "大佬 您好 你好 求助 求教 请教 谢谢 感谢 麻烦 一下 是否 可以 能否 为啥 咋 怎么回事 是什么 什么样 " +
  "造成 导致 出现 发现 遇到 碰到 报错 报错了 总是 老是 好像 似乎 " +
  "关于 理解 奇怪 很奇怪 事情 尽管 并 并没有 每次 每一次 一次 到 得到 从头 这里 那里 中 么 啥 " +
  "为 随着 进行 持续 不断 逐渐 过程 过程中 期间 时 上 注意 详细 常见错误 常见问题 注意事项 解决方案 方案 总结 函数 " +
  "function functions method methods " +
  "实在 想不明白 明明 执行 正常 才 开始 第一个 第二个 第一次 第二次 已经 但是 可是 然后 应该 地方 " +
  "您 您的 只是 而 而是 通过 作为 以及 其中 并且 或者 如果 因为 所以 虽然 但 而且 然而 对于 由于 其他 另外 " +
  "这样 那样 这些 那些 一些 自己 可能 偶尔 有时 有时候 项目 求解 正常吗 这正常吗 " +
  // a negation says what the reader sees, not what a page is about: "结果不可复现"
  "不 不可 不能 无法 没法 不会 不是 没有 " +
  // what a query asks for, not what it is about: "scatter 用法", "view 和 reshape 区别"
  "usage example examples tutorial explained explanation difference meaning correct correctly properly " +
  // a flag's value says how it is set, not what it is: "deterministic 设置为 true" is about deterministic
  // (a page that passes weights_only=True to every call would match "true" more than any other)
  "true false " +
  "用法 使用 怎么用 作用 含义 意思 详解 教程 例子 示例 区别 不同 原因 方法 办法").split(/\s+/));

var docs = [];      // [{doc, page, boost, fields: {title, text, words}, tokens, pairs, length}]
var vocabulary = new Set();
var synonyms = new Map();  // a reader's term -> the site's (docs/search-synonyms.<lang>.yml)
var apis = new Set();      // API names of the site's pages (field "apis")
var latinWords = [];       // every Latin token of the index, for a misspelt name (sava_for_backward)
var averageLength = 1;
var pageLength = new Map(), averagePageLength = 1;
var articles = new Map();  // page location -> its own entry (the h1 and the text before the first heading)

function normalize(s) {
  return (s || "").normalize("NFKC").toLowerCase().replace(/\u200b/g, "");
}

function stripTags(html) {
  return (html || "").replace(/<[^>]*>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&amp;/g, "&");
}

/* Latin tokens of a text, each also without its leading/trailing underscores and split at
 * inner ones, so `scatter_` finds `scatter` and `kaiming normal` finds `kaiming_normal_`. */
function latinTokens(text) {
  var out = [];
  (text.match(LATIN) || []).forEach(function (t) {
    out.push(t);
    var bare = t.replace(/^_+|_+$/g, "");
    if (bare && bare !== t) out.push(bare);
    if (bare.indexOf("_") > 0) bare.split(/_+/).forEach(function (p) { if (p) out.push(p); });
  });
  return out;
}

/* The parts of a CamelCase or camelCase name, lowercased: DistributedSampler -> distributed, sampler. */
function camelParts(raw) {
  var out = [];
  (raw.match(/[A-Za-z][A-Za-z0-9]*/g) || []).forEach(function (t) {
    var parts = t.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+/g) || [];
    if (parts.length > 1) out.push({ whole: t.toLowerCase(), parts: parts.map(function (p) { return p.toLowerCase(); }) });
  });
  return out;
}

function setup(index) {
  vocabulary = new Set();
  synonyms = new Map(Object.entries((index.config || {}).synonyms || {}));
  synonyms.forEach(function (_, term) { (term.match(HAN_RUN) || []).forEach(function (run) { vocabulary.add(run); }); });
  apis = new Set();
  index.docs.forEach(function (doc) { (doc.apis || "").split(/\s+/).forEach(function (a) { if (a) apis.add(a); }); });
  docs = index.docs.map(function (doc) {
    var raw = { title: stripTags(doc.title), text: stripTags(doc.text), words: doc.words || "" };
    [raw.title, raw.text, raw.words].forEach(function (s) {  // the words jieba cut (U+200B)
      (s.match(/[\p{Script=Han}\u200b]+/gu) || []).forEach(function (run) {
        run.split("\u200b").forEach(function (w) { if (w.length > 1) vocabulary.add(w); });
      });
    });
    raw.words.split("|").forEach(function (w) {  // readers' words, whole
      w = normalize(w).trim();
      (w.match(HAN_RUN) || []).forEach(function (run) { if (run.length > 1) vocabulary.add(run); });
    });
    var fields = { title: normalize(raw.title), text: normalize(raw.text), words: normalize(raw.words) };
    var tokens = new Map();
    var length = 0;
    Object.keys(fields).forEach(function (name) {
      var found = latinTokens(fields[name]);
      camelParts(raw[name]).forEach(function (c) { found = found.concat(c.parts); });
      found.forEach(function (t) {
        var key = name + ":" + t;
        tokens.set(key, (tokens.get(key) || 0) + 1);
        tokens.set("*:" + t, 1);
        length++;
      });
      length += (fields[name].match(/\p{Script=Han}/gu) || []).length / 2;
    });
    var weighted = new Map();  // Latin token -> its frequency over the fields, weighted (occurrence)
    tokens.forEach(function (n, key) {
      var at = key.indexOf(":"), field = key.slice(0, at), t = key.slice(at + 1);
      if (field !== "*") weighted.set(t, (weighted.get(t) || 0) + FIELD_WEIGHT[field] * n);
    });
    var plain = (fields.title + " " + fields.text).match(LATIN) || [];
    var pairs = new Set();
    var words = plain.filter(function (t) { return !/\d/.test(t); });
    for (var i = 1; i < words.length; i++) pairs.add(words[i - 1] + " " + words[i]);
    var sequence = " " + words.join(" ") + " ";  // for a query's words found together, in order
    return {
      doc: doc, page: doc.location.split("#")[0], boost: typeof doc.boost === "number" ? doc.boost : 1,
      fields: fields, sequence: sequence, tokens: tokens, weighted: weighted, prefixes: Array.from(tokens.keys()).filter(function (k) {
        return k.charAt(0) === "*";
      }).map(function (k) { return k.slice(2); }).sort(), pairs: pairs, length: Math.max(length, 1),
      all: fields.title + " " + fields.text + " " + fields.words
    };
  });
  var all = new Set();
  docs.forEach(function (d) { d.prefixes.forEach(function (t) { if (t.length >= 7) all.add(t); }); });
  latinWords = Array.from(all);
  averageLength = docs.reduce(function (s, d) { return s + d.length; }, 0) / Math.max(docs.length, 1);
  pageLength = new Map();
  articles = new Map();
  docs.forEach(function (d) {
    pageLength.set(d.page, (pageLength.get(d.page) || 0) + d.length);
    if (d.doc.location === d.page) articles.set(d.page, d);
  });
  averagePageLength = docs.length / Math.max(pageLength.size, 1) * averageLength;
}

/* Whether the page is about a word: it is in the page's title (its h1), or among the readers'
 * words given for the whole page (docs/search-aliases.<lang>.yml). */
function about(page, word) {
  var article = articles.get(page);
  if (!article) return false;
  if (word.han) return article.fields.title.indexOf(word.value) !== -1 || article.fields.words.indexOf(word.value) !== -1;
  return article.tokens.has("title:" + word.value) || article.tokens.has("words:" + word.value);
}

/* Whether the page's title (its h1) names an API word of the query. */
function titled(page, word) {
  var article = articles.get(page);
  return !!article && article.tokens.has("title:" + word.value);
}

/* A run of Chinese characters cut into words, from the left and from the right (the longest
 * word of the index's vocabulary, or a stop word, at each position; characters between known
 * words stay together); the cut with fewer pieces wins, and on a tie the one from the right,
 * as in bidirectional maximum matching: "模型时报错" is 模型 / 时 / 报错, not 模型 / 时报 / 错. */
function known(w) { return (w.length > 1 && vocabulary.has(w)) || STOP.has(w); }

function cutForward(run) {
  var out = [], pending = "", i = 0;
  function flush() { if (pending) out.push(pending); pending = ""; }
  while (i < run.length) {
    var found = 0;
    for (var n = Math.min(MAX_WORD, run.length - i); n >= 1 && !found; n--) if (known(run.substr(i, n))) found = n;
    if (found) { flush(); out.push(run.substr(i, found)); i += found; } else { pending += run[i]; i++; }
  }
  flush();
  return out;
}

function cutBackward(run) {
  var out = [], pending = "", j = run.length;
  function flush() { if (pending) out.unshift(pending); pending = ""; }
  while (j > 0) {
    var found = 0;
    for (var n = Math.min(MAX_WORD, j); n >= 1 && !found; n--) if (known(run.substr(j - n, n))) found = n;
    if (found) { flush(); out.unshift(run.substr(j - found, found)); j -= found; } else { pending = run[j - 1] + pending; j--; }
  }
  flush();
  return out;
}

function cut(run) {
  var f = cutForward(run), b = cutBackward(run);
  function singles(ws) { return ws.filter(function (w) { return w.length === 1 && !STOP.has(w); }).length; }
  if (f.length !== b.length) return f.length < b.length ? f : b;
  return singles(f) < singles(b) ? f : b;
}

/* The query's words, in order: Latin tokens and Chinese words, stop words marked. */
function parse(query) {
  var words = [];
  var camel = new Map();
  camelParts(query || "").forEach(function (c) { camel.set(c.whole, c.parts); });
  (normalize(query).match(TOKEN) || []).forEach(function (piece) {
    if (/\p{Script=Han}/u.test(piece)) cut(piece).forEach(function (w) { words.push({ value: synonyms.get(w) || w, han: true }); });
    else words.push({ value: synonyms.get(piece) || piece, han: false, parts: camel.get(piece) });
  });
  // "torch.distributed.elastic.multiprocessing.api": in a path from a library's root, the parts
  // before the last are modules, not APIs ("mask.unsqueeze(1)" keeps its "mask")
  var modules = new Set();
  (normalize(query).match(/\b(?:torch|nn|f|functional|np|numpy)(?:\.[a-z0-9_]+)+/g) || []).forEach(function (path) {
    path.split(".").slice(0, -1).forEach(function (m) { modules.add(m); });
  });
  words.forEach(function (w) {
    w.stop = STOP.has(w.value) || /^\d+$/.test(w.value) || /^[a-z]\d+$/.test(w.value);  // a reader's own numbers and names (A5, x1)
    w.api = !w.han && !w.stop && !modules.has(w.value) &&
      (apis.has(w.value) || apis.has(w.value.replace(/^_+|_+$/g, "")));
  });
  var seen = new Set();
  var distinct = words.filter(function (w) { return !seen.has(w.value) && seen.add(w.value); });
  var content = distinct.filter(function (w) { return !w.stop; });
  // Word pairs and the phrase come from each run of Latin text on its own: an English message
  // pasted into a Chinese sentence is one run, and no pair spans the Chinese words around it.
  var runs = normalize(query).split(HAN_RUN).map(function (run) {
    return (run.match(LATIN) || []).filter(function (t) { return !/\d/.test(t); });
  }).filter(function (run) { return run.length; });
  var pairs = [], longest = [];
  runs.forEach(function (run) {
    for (var i = 1; i < run.length; i++) pairs.push(run[i - 1] + " " + run[i]);
    if (run.length > longest.length) longest = run;
  });
  // a pasted message names its type ("RuntimeError: index out of range"), often another one than
  // the page's (IndexError): the phrase, every Latin word of the query in order, leaves types out
  var latin = [].concat.apply([], runs).filter(function (t) { return !/(error|warning|exception)$/.test(t); });
  var pasted = longest.length >= 4 && /(error|warning|exception)$/.test(longest[0]);
  return { words: content.length ? content : distinct, pairs: longest.length >= PHRASE || pasted ? pairs : [],
           phrase: latin.length >= 2 ? " " + latin.join(" ") + " " : null };
}

function count(haystack, needle) {
  var n = 0, at = haystack.indexOf(needle);
  while (at !== -1) { n++; at = haystack.indexOf(needle, at + needle.length); }
  return n;
}

/* How a word occurs in a doc: strength (1 whole, less for a prefix or for some of an unknown
 * run's character pairs, 0 absent) and its weighted frequency over the fields. */
function occurrence(d, word) {
  var tf = 0, strength = 0;
  if (word.han) {
    if (d.all.indexOf(word.value) !== -1)  // (no field holds it when the fields joined do not)
      for (var f = 0; f < FIELDS.length; f++) tf += FIELD_WEIGHT[FIELDS[f]] * count(d.fields[FIELDS[f]], word.value);
    if (tf) return { strength: 1, tf: tf };
    if (word.value.length < 3) return null;
    var pairs = 0, found = 0;
    for (var i = 1; i < word.value.length; i++) { pairs++; if (d.all.indexOf(word.value.substr(i - 1, 2)) !== -1) found++; }
    return found / pairs >= 0.5 ? { strength: 0.5 * found / pairs, tf: 1 } : null;
  }
  tf = d.weighted.get(word.value) || 0;
  if (tf) return { strength: 1, tf: tf };
  if (word.value.length < 3) return null;
  // a token that starts with the word: the prefixes are sorted, so the first one not below the word
  var lo = 0, hi = d.prefixes.length;
  while (lo < hi) { var mid = (lo + hi) >>> 1; if (d.prefixes[mid] < word.value) lo = mid + 1; else hi = mid; }
  if (lo < d.prefixes.length && d.prefixes[lo].lastIndexOf(word.value, 0) === 0) strength = 0.6;
  return strength ? { strength: strength, tf: 1 } : null;
}

var ESCAPE = /[.*+?^${}()|[\]\\]/g;

/* Matched words wrapped in <mark data-md-highlight>, in text outside HTML tags only: one pass
 * that steps over each tag whole (a word never holds "<"), with one pattern per set of words. */
var highlighters = new Map();
function highlight(html, words) {
  if (!words.length) return html;
  var key = words.map(function (w) { return (w.han ? "h" : "l") + w.value; }).join("\u0000");
  var re = highlighters.get(key);
  if (!re) {
    var alternatives = words.map(function (w) {
      var v = w.value.replace(ESCAPE, "\\$&");
      return w.han ? v : "(?<![a-z0-9_])" + v + (w.value.length >= 3 ? "[a-z0-9_]*" : "(?![a-z0-9_])");
    });
    alternatives.sort(function (a, b) { return b.length - a.length; });
    // Chinese has no case: without the "i" flag V8 scans such a pattern faster, with the same matches
    var caseless = words.every(function (w) { return !/[^\p{Script=Han}]/u.test(w.value); });
    re = new RegExp("(<[^>]*>)|(?:" + alternatives.join("|") + ")", caseless ? "gu" : "giu");
    highlighters.set(key, re);
  }
  return html.replace(/\u200b/g, "").replace(re, function (match, tag) {
    return tag !== undefined ? tag : "<mark data-md-highlight>" + match + "</mark>";
  });
}

/* Whether two words are one typing slip apart: one letter changed, added, dropped or swapped. */
function oneSlip(a, b) {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  var i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  var ra = a.slice(i + 1), rb = b.slice(i + 1);
  return ra === rb || a.slice(i) === b.slice(i + 1) || a.slice(i + 1) === b.slice(i) ||
    (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2));
}

/* A word no page has is looked up as what it most likely is: a name misspelt by one letter
 * (sava_for_backward), or, written in CamelCase (DistributedDataSampler), by its parts. */
function splitUnknown(q) {
  var out = [];
  q.words.forEach(function (w) {
    var unknown = !w.han && !w.stop && !docs.some(function (d) { return occurrence(d, w); });
    var slip = unknown && w.value.length >= 7 ? latinWords.find(function (t) { return oneSlip(w.value, t); }) : null;
    if (slip) {
      out.push({ value: slip, han: false, stop: false, api: apis.has(slip) || apis.has(slip.replace(/^_+|_+$/g, "")) });
    } else if (unknown && w.parts) {
      w.parts.forEach(function (p) {
        if (!STOP.has(p) && !out.some(function (x) { return x.value === p; }))
          out.push({ value: p, han: false, stop: false, api: apis.has(p) });
      });
    } else out.push(w);
  });
  q.words = out;
}

function search(query) {
  highlighters = new Map();
  var q = parse(query);
  if (!q.words.length) return { items: [] };
  splitUnknown(q);
  var n = docs.length, matches = [], df = q.words.map(function () { return 0; });
  docs.forEach(function (d) {
    var found = q.words.map(function (w) { return occurrence(d, w); });
    if (!found.some(Boolean)) return;
    found.forEach(function (o, i) { if (o) df[i]++; });
    var pairs = 0;
    q.pairs.forEach(function (p) { if (d.pairs.has(p)) pairs++; });
    var exact = q.phrase !== null && d.sequence.indexOf(q.phrase) !== -1;
    matches.push({ d: d, found: found, pairs: pairs, exact: exact });
  });
  var idf = df.map(function (x, i) {
    return Math.log(1 + (n - x + 0.5) / (x + 0.5)) * (q.words[i].api ? API_WEIGHT : 1);
  });
  var total = idf.reduce(function (s, x) { return s + x; }, 0) || 1;
  var pages = new Map();
  matches.forEach(function (m) {
    var bm25 = 0;
    m.found.forEach(function (o, i) {
      if (!o) return;
      var norm = o.tf * (K1 + 1) / (o.tf + K1 * (1 - B + B * m.d.length / averageLength));
      bm25 += idf[i] * o.strength * norm;
    });
    m.bm25 = bm25;
    var page = pages.get(m.d.page);
    if (!page) {
      page = { members: [], strength: q.words.map(function () { return 0; }), tf: q.words.map(function () { return 0; }),
               pairs: 0, exact: false, boost: m.d.boost };
      pages.set(m.d.page, page);
    }
    m.found.forEach(function (o, i) {
      if (!o) return;
      page.strength[i] = Math.max(page.strength[i], o.strength);
      page.tf[i] += o.tf;
    });
    page.pairs = Math.max(page.pairs, m.pairs);
    page.exact = page.exact || m.exact;
    page.members.push(m);
  });
  /* A page's rank: how much of the query it holds (level), then BM25 over the whole page,
   * with a bonus for each word in its title or its readers' words. */
  var ranked = [];
  pages.forEach(function (page, location) {
    var coverage = page.strength.reduce(function (s, x, i) { return s + x * idf[i]; }, 0) / total;
    if (q.pairs.length) coverage = (coverage + page.pairs / q.pairs.length) / 2;
    if (page.exact) coverage += EXACT;  // the query's words, together and in order
    // the page named for the query's API comes first, unless the query is a pasted message
    if (!q.pairs.length && q.words.some(function (w, i) { return w.api && page.strength[i] === 1 && titled(location, w); }))
      coverage += API_TITLE;
    var level = Math.floor(coverage * page.boost * 10 + 1e-9);
    var length = (pageLength.get(location) || 1) / averagePageLength, bm25 = 0;
    q.words.forEach(function (w, i) {
      if (!page.tf[i]) return;
      bm25 += idf[i] * page.strength[i] * page.tf[i] * (K1 + 1) / (page.tf[i] + K1 * (1 - B_PAGE + B_PAGE * length));
      if (about(location, w)) bm25 += TITLE_BONUS * idf[i];
    });
    page.score = level + bm25 / (bm25 + 10);
    page.location = location;
    ranked.push(page);
  });
  ranked.sort(function (a, b) { return b.score - a.score || (a.location < b.location ? -1 : 1); });
  var items = ranked.map(function (page) {
    var members = page.members.map(function (m) {
      var matched = q.words.filter(function (_, i) { return m.found[i]; });
      var terms = {};
      q.words.forEach(function (w, i) { terms[w.value] = !!m.found[i]; });
      var doc = Object.assign({}, m.d.doc);
      delete doc.words;
      doc.title = highlight(doc.title, matched);
      doc.text = highlight(doc.text, matched);
      return Object.assign(doc, { score: m.bm25, terms: terms });
    });
    members.sort(function (a, b) { return b.score - a.score; });
    if (!members.some(function (m) { return m.location === page.location; })) {
      var article = docs.find(function (d) { return d.doc.location === page.location; });
      if (article) {
        var doc = Object.assign({}, article.doc, { score: 0, terms: {} });
        delete doc.words;
        members.push(doc);
      }
    }
    return members;
  });
  return { items: items };
}

self.addEventListener("message", function (event) {
  var message = event.data;
  if (message.type === SETUP) {
    setup(message.data);
    self.postMessage({ type: READY });
  } else if (message.type === QUERY) {
    var data;
    try { data = search(message.data); } catch (e) { console.warn(e); data = { items: [] }; }
    self.postMessage({ type: RESULT, data: data });
  }
});
