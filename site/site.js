// The demo pages render what the discovery API serves, so every address the
// sample profile publishes leads to a real page.
"use strict";

function escapeHTML(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// markdown renders the Markdown the sample insights use: headings, lists,
// fenced code, paragraphs, emphasis and inline code. Input is escaped first.
function markdown(md) {
  const out = [];
  let list = null, code = null, para = [];
  const inline = (s) => escapeHTML(s)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/\*([^*]+)\*/g, "<em>$1</em>");
  const flush = () => {
    if (para.length) out.push("<p>" + inline(para.join(" ")) + "</p>");
    para = [];
    if (list) out.push("<" + list.tag + ">" + list.items.map((i) => "<li>" + inline(i) + "</li>").join("") + "</" + list.tag + ">");
    list = null;
  };
  for (const line of md.split("\n")) {
    if (code !== null) {
      if (line.startsWith("```")) { out.push("<pre><code>" + escapeHTML(code.join("\n")) + "</code></pre>"); code = null; }
      else code.push(line);
      continue;
    }
    let m;
    if (line.startsWith("```")) { flush(); code = []; }
    else if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) { flush(); const n = Math.min(m[1].length + 1, 6); out.push(`<h${n}>` + inline(m[2]) + `</h${n}>`); }
    else if ((m = /^\s*(?:[-*]|(\d+)\.)\s+(.*)$/.exec(line))) {
      const tag = m[1] ? "ol" : "ul";
      if (para.length || (list && list.tag !== tag)) flush();
      list = list || { tag, items: [] };
      list.items.push(m[2]);
    }
    else if (line.trim() === "") flush();
    else if (list && /^\s+/.test(line)) list.items[list.items.length - 1] += " " + line.trim();
    else { if (list) flush(); para.push(line.trim()); }
  }
  flush();
  return out.join("\n");
}

async function api(path) {
  const res = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await res.json();
  if (!res.ok) throw new Error(body.detail || res.statusText);
  return body;
}

async function renderAbout(el) {
  try {
    const p = await api("/api/v1/profile");
    el.innerHTML = "<p><strong>" + escapeHTML(p.tagline) + "</strong></p>" +
      p.about.map((s) => "<p>" + escapeHTML(s) + "</p>").join("") +
      "<h2>Key facts</h2><ul>" + p.keyFacts.map((s) => "<li>" + escapeHTML(s) + "</li>").join("") + "</ul>" +
      "<h2>Education</h2><ul>" + p.education.map((s) => "<li>" + escapeHTML(s) + "</li>").join("") + "</ul>";
  } catch (e) { el.textContent = "The profile could not be loaded: " + e.message; }
}

async function renderInsights(el) {
  try {
    const list = await api("/api/v1/insights");
    el.innerHTML = list.items.map((i) => '<li><a href="/insights/' + escapeHTML(i.slug) + '">' + escapeHTML(i.title) +
      "</a> · " + escapeHTML(i.date) + " · " + escapeHTML(i.topic) + "<br>" + escapeHTML(i.description) + "</li>").join("");
  } catch (e) { el.textContent = "The insights could not be loaded: " + e.message; }
}

async function renderInsight(el, slug) {
  try {
    const doc = await api("/api/v1/insights/" + encodeURIComponent(slug));
    document.title = doc.title + " · Rosalind Achterberg";
    el.innerHTML = "<h1>" + escapeHTML(doc.title) + "</h1><p><em>" + escapeHTML(doc.date) + " · " + escapeHTML(doc.topic) +
      " · " + escapeHTML(doc.readTime) + "</em></p>" + markdown(doc.content);
  } catch (e) { el.textContent = "This insight could not be loaded: " + e.message; }
}
