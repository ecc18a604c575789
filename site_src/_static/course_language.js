/* The language link keeps the reader's place: clicked on a section (its #anchor, or the section at the top of the
 * window), it opens the other edition at the same section. The editions' ids differ (English slugs, Chinese ids),
 * but their sections correspond one to one (the zh notebook is built cell by cell from the English one), so the
 * link carries the section's position, #course-section-N, and the page it opens turns that into its own id. */
(function () {
  "use strict";
  const sections = () => Array.from(document.querySelectorAll("article.bd-article section[id]"));

  let arrived = null;
  function arrive() {
    const m = window.location.hash.match(/^#course-section-(\d+)$/);
    arrived = m ? sections()[+m[1]] || null : arrived;
    if (!arrived) return;
    if (m) window.history.replaceState(null, "", "#" + arrived.id);
    arrived.scrollIntoView();
  }

  function here() {
    const list = sections();
    const id = decodeURIComponent(window.location.hash.slice(1));
    const named = id && document.getElementById(id);
    if (named) return list.indexOf(named.closest("section[id]"));
    if (window.scrollY < 50) return -1;
    let at = -1;
    list.forEach((s, i) => { if (s.getBoundingClientRect().top <= 80) at = i; });
    return at;
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a.course-other-language");
    if (!link) return;
    const i = here();
    link.href = link.href.split("#")[0] + (i > 0 ? "#course-section-" + i : "");
  });
  arrive();
  window.addEventListener("load", arrive);
})();
