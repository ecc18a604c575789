/* The search page of both editions (site_src/_templates/search.html loads it after Sphinx's searchtools.js).
 * 1. A query in Chinese is split into words the index knows, as the build split the pages (jieba, with the
 *    course's glossary terms kept whole, each word with the shorter words inside it): a run of Hanzi the index has
 *    stays whole (自注意力), any other is cut into the fewest known words (缩放点积 -> 缩放 点积).
 * 2. The snippet under a result is the article's own text: no theme chrome, no raw TeX, no run box or buttons. */
(function () {
  "use strict";
  const HAN = /^\p{Script=Han}+$/u;
  let known = null;
  function vocabulary() {
    if (known === null && typeof Search !== "undefined" && Search._index) {
      known = new Set([...Object.keys(Search._index.terms), ...Object.keys(Search._index.titleterms)]);
    }
    return known || new Set();
  }

  /* the fewest pieces of `run` (Hanzi) that the index knows; characters it does not know are dropped */
  function segment(run) {
    const words = vocabulary();
    if (words.has(run)) return [run];
    const n = run.length;
    const best = new Array(n + 1).fill(null);  // best[i] = [cost, pieces] for run[0:i]
    best[0] = [0, []];
    for (let i = 0; i < n; i++) {
      if (best[i] === null) continue;
      for (let j = i + 1; j <= n; j++) {
        const piece = run.slice(i, j);
        const ok = words.has(piece);
        if (!ok && j > i + 1) continue;
        const cost = best[i][0] + (ok ? 1 : 100);
        if (best[j] === null || cost < best[j][0]) best[j] = [cost, ok ? [...best[i][1], piece] : best[i][1]];
      }
    }
    return best[n][1].length ? best[n][1] : [run];
  }

  /* a single letter or digit is never a word of the index (Sphinx keeps words of two characters and more, and
   * single Hanzi only when the course uses one as a term): left in, it would make every search with it fail */
  const sphinxSplit = window.splitQuery;
  window.splitQuery = (query) =>
    sphinxSplit(query).flatMap((word) =>
      (word.match(/\p{Script=Han}+|[^\p{Script=Han}]+/gu) || []).flatMap((run) => (HAN.test(run) ? segment(run) : [run])))
      .filter((term, _, all) => term.length > 1 || HAN.test(term) || all.length === 1);

  const DROP = [".headerlink", "script", "style", ".math", "mjx-container", ".run-this", "button", ".copybtn",
                ".bd-header-article", ".prev-next-area", "nav", "figure img"];
  Search.htmlToText = (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    doc.querySelectorAll(DROP.join(",")).forEach((el) => el.remove());
    const article = doc.querySelector("article.bd-article") || doc.querySelector('[role="main"]');
    const part = (anchor && article && article.querySelector(anchor)) || article;
    return part ? part.textContent.replace(/\s+/g, " ").trim() : "";
  };
})();
