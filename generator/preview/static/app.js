// pnp serve's page: every face of the game, redrawn as the server tells of a change.
// Everything a pack gives is shown as text (textContent), never read as markup.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const withToken = (path) => `${path}${path.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}`;
const SVG = "http://www.w3.org/2000/svg";
const state = { data: null, faces: new Map(), view: "cards", outputs: "", changes: "" };

function element(tag, attributes = {}, text = "") {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  if (text) made.textContent = text;
  return made;
}

function svgElement(tag, attributes) {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, String(value));
  return made;
}

function where(finding) {
  return finding.line ? `${finding.path}:${finding.line}` : finding.path;
}

function findingItem(finding) {
  const item = element("li", { class: finding.level, "data-code": finding.code });
  item.append(element("strong", {}, `${finding.code} `), element("span", { class: "message" }, finding.message), " ");
  const place = where(finding);
  if (finding.link) {
    const link = element("a", { class: "where", href: finding.link, title: "open in the editor" }, place);
    item.append(link);
  } else {
    item.append(element("span", { class: "where" }, place));
  }
  return item;
}

function overlay(face) {
  const width = face.width + 2 * face.bleed, height = face.height + 2 * face.bleed;
  const svg = svgElement("svg", { viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: "none" });
  const cut = face.cut.map(([x, y]) => `${x + face.bleed},${y + face.bleed}`).join(" ");
  const outer = `M0,0 H${width} V${height} H0 Z`;
  const inner = "M" + face.cut.map(([x, y]) => `${x + face.bleed},${y + face.bleed}`).join(" L") + " Z";
  svg.append(svgElement("path", { class: "overlay-bleed", d: `${outer} ${inner}`, "fill-rule": "evenodd",
                                  fill: "rgba(230, 30, 120, .28)" }));
  svg.append(svgElement("polygon", { class: "overlay-cut", points: cut, fill: "none", stroke: "#00a0e0",
                                     "stroke-width": .35 }));
  const safe = face.safe_outline.map(([x, y]) => `${x + face.bleed},${y + face.bleed}`).join(" ");
  svg.append(svgElement("polygon", { class: "overlay-safe", points: safe, fill: "none", stroke: "#2aa02a",
                                     "stroke-width": .3, "stroke-dasharray": "1.2 .8" }));
  for (const finding of face.findings) {
    if (!finding.box) continue;
    const [left, top, right, bottom] = finding.box;
    const box = svgElement("rect", { class: `finding-box ${finding.level}`, x: left, y: top,
                                     width: Math.max(right - left, .5), height: Math.max(bottom - top, .5),
                                     "data-code": finding.code });
    svg.append(box);
  }
  return svg;
}

function faceFigure(face) {
  const figure = element("figure", { class: "face", "data-ident": face.ident, "data-deck": face.deck,
                                     "data-card": face.card, "data-side": face.side });
  const picture = element("div", { class: "picture" });
  const image = element("img", { alt: `${face.name} (${face.side})`, loading: "lazy" });
  if (face.image) image.src = withToken(`image/${face.image}.png`);
  picture.append(image, overlay(face));
  const caption = element("figcaption");
  caption.append(element("span", { class: "name" }, face.name),
                 element("span", { class: "badge-stale", title: "the pack has a mistake here: this is the last good picture" }, "stale"),
                 element("span", { class: "badge-draft", title: "laid out as it is now, with errors: the outlines show where" }, "errors"),
                 element("br"),
                 element("span", { class: "meta" },
                         `${face.deck} · ${face.side === "back" ? "back " : ""}${face.card} · ×${face.copies}` +
                         (face.tag ? ` · ${face.tag}` : "")));
  figure.append(picture, caption);
  if (face.findings.length) {
    const list = element("ul", { class: "findings" });
    for (const finding of face.findings) list.append(findingItem(finding));
    figure.append(list);
  }
  figure.classList.toggle("stale", face.stale);
  figure.classList.toggle("draft", face.draft);
  figure.classList.toggle("has-findings", face.findings.length > 0);
  return figure;
}

function sameExceptImage(a, b) {
  return JSON.stringify({ ...a, image: "" }) === JSON.stringify({ ...b, image: "" });
}

function renderCards(data) {
  const root = document.getElementById("cards");
  const order = data.faces.map((face) => face.ident).join("\n");
  if (root.dataset.order !== order) {  // faces came, went or moved: lay the view out anew
    root.replaceChildren();
    state.faces.clear();
    for (const [id, name] of data.decks) {
      const deck = element("section", { class: "deck", "data-deck": id });
      deck.append(element("h2", {}, `${name} (${id})`), element("div", { class: "faces" }));
      root.append(deck);
    }
    root.dataset.order = order;
  }
  const seen = new Set();
  for (const face of data.faces) {
    seen.add(face.ident);
    const known = state.faces.get(face.ident);
    if (known && JSON.stringify(known.face) === JSON.stringify(face)) continue;
    if (known && sameExceptImage(known.face, face)) {  // only its picture changed
      known.node.querySelector("img").src = withToken(`image/${face.image}.png`);
      known.face = face;
      continue;
    }
    const node = faceFigure(face);
    if (known) known.node.replaceWith(node);
    else root.querySelector(`.deck[data-deck="${CSS.escape(face.deck)}"] .faces`).append(node);
    state.faces.set(face.ident, { face, node });
  }
  for (const [ident, known] of state.faces) {
    if (!seen.has(ident)) { known.node.remove(); state.faces.delete(ident); }
  }
  filter();
}

function renderGameFindings(data) {
  const box = document.getElementById("game-findings");
  box.replaceChildren();
  if (!data.findings.length) { box.hidden = true; return; }
  const list = element("ul", { class: "findings" });
  for (const finding of data.findings) list.append(findingItem(finding));
  box.append(element("strong", {}, "Findings on no single face"), list);
  box.hidden = false;
}

function renderOutputs(data) {
  const key = JSON.stringify(data.outputs);
  if (state.outputs === key) return;
  state.outputs = key;
  for (const view of ["sheets", "rulebook"]) {
    const root = document.getElementById(view);
    root.replaceChildren();
    for (const output of data.outputs) {
      if ((output.kind === "rulebook") !== (view === "rulebook")) continue;
      const section = element("section", { class: "sheet-output", "data-file": output.file });
      section.classList.toggle("stale", output.stale);
      section.append(element("h2", {}, `${output.file} · ${output.pages} page${output.pages === 1 ? "" : "s"}`));
      const pages = element("div", { class: "pages" });
      for (let number = 1; number <= output.pages; number++) {
        const figure = element("figure");
        figure.append(element("img", { loading: "lazy", alt: `${output.file} page ${number}`,
                                       src: withToken(`page/${encodeURIComponent(output.file)}/${number}.png?v=${output.pdf}`) }),
                      element("figcaption", {}, `page ${number}`));
        pages.append(figure);
      }
      section.append(pages);
      root.append(section);
    }
    if (!root.children.length) root.append(element("p", {}, data.busy ? "being made…" : "nothing to show"));
  }
}

function changeSide(label, picture, boxes, alt) {
  const side = element("div", { class: "side" });
  side.append(element("div", { class: "side-label" }, label));
  if (!picture) {
    side.append(element("div", { class: "missing" }, "not kept on this machine (pnp release keeps it)"));
    return side;
  }
  const frame = element("div", { class: "picture" });
  frame.append(element("img", { alt, loading: "lazy", src: withToken(`image/${picture}.png`) }));
  for (const [left, top, right, bottom] of boxes) {  // fractions of the picture
    const box = element("div", { class: "changed-box" });
    box.style.left = `${100 * left}%`;
    box.style.top = `${100 * top}%`;
    box.style.width = `${100 * (right - left)}%`;
    box.style.height = `${100 * (bottom - top)}%`;
    frame.append(box);
  }
  side.append(frame);
  return side;
}

function renderChanges(data) {
  const key = JSON.stringify([data.game, data.edition, data.changes]);
  if (state.changes === key) return;
  state.changes = key;
  const root = document.getElementById("changes");
  root.replaceChildren();
  if (!data.edition) {
    root.append(element("p", { class: "no-edition" },
                        `No edition to compare with: run \`pnp release ${data.game}\` first. ` +
                        "This view then shows each face that prints differently since, before and after."));
    return;
  }
  const count = data.changes.length;
  root.append(element("h2", {}, count ?
    `${count} face${count === 1 ? " prints" : "s print"} differently since ${data.edition}` :
    `Nothing prints differently since ${data.edition}`));
  const list = element("div", { class: "change-list" });
  for (const change of data.changes) {
    const figure = element("figure", { class: "change", "data-ident": change.ident });
    const pair = element("div", { class: "pair" });
    pair.append(changeSide("before", change.before, change.boxes, `${change.name} before`),
                changeSide("after", change.after, change.before ? change.boxes : [], `${change.name} now`));
    const caption = element("figcaption");
    caption.append(element("span", { class: "name" }, change.name), " ",
                   element("span", { class: "meta" }, `${change.ident} · since ${change.since}`));
    const why = element("ul", { class: "why" });
    for (const line of change.why) why.append(element("li", {}, line));
    figure.append(pair, caption, why);
    list.append(figure);
  }
  root.append(list);
}

function filter() {
  const deck = document.getElementById("deck").value;
  const words = document.getElementById("search").value.trim().toLowerCase();
  const onlyFindings = document.getElementById("only-findings").checked;
  for (const { face, node } of state.faces.values()) {
    const text = `${face.ident} ${face.name} ${face.text}`.toLowerCase();
    const shown = (!deck || face.deck === deck) && (!words || text.includes(words)) &&
                  (!onlyFindings || face.findings.length > 0);
    node.classList.toggle("hidden", !shown);
  }
  for (const section of document.querySelectorAll("#cards .deck")) {
    section.classList.toggle("hidden", !section.querySelector("figure.face:not(.hidden)"));
  }
}

function renderDecks(data) {
  const select = document.getElementById("deck");
  const key = JSON.stringify(data.decks);
  if (select.dataset.key === key) return;
  select.dataset.key = key;
  const chosen = select.value;
  select.replaceChildren(element("option", { value: "" }, "every deck"));
  for (const [id, name] of data.decks) select.append(element("option", { value: id }, name));
  select.value = chosen;
}

function renderStatus(data) {
  const status = document.getElementById("status");
  const faces = data.faces.length;
  const errors = data.faces.reduce((sum, face) => sum + face.findings.filter((f) => f.level === "error").length, 0) +
                 data.findings.filter((f) => f.level === "error").length;
  status.textContent = data.busy ? `${data.busy}…` :
    `${faces} face${faces === 1 ? "" : "s"}, ${errors} error${errors === 1 ? "" : "s"} · version ${data.version} · faces in ${data.seconds.toFixed(2)} s`;
  status.classList.toggle("busy", Boolean(data.busy));
  document.body.dataset.version = String(data.version);
  document.getElementById("title").textContent = data.title;
  document.title = `${data.title} · pnp serve`;
}

async function refresh() {
  const answer = await fetch(withToken("api/state"), { cache: "no-store" });
  if (!answer.ok) throw new Error(await answer.text());
  const data = await answer.json();
  if (state.data && data.version < state.data.version) return;
  state.data = data;
  renderDecks(data);
  renderStatus(data);
  renderCards(data);
  renderGameFindings(data);
  renderOutputs(data);
  renderChanges(data);
}

function choose(view) {
  state.view = view;
  for (const button of document.querySelectorAll("#views button")) {
    button.setAttribute("aria-pressed", String(button.dataset.view === view));
  }
  for (const section of document.querySelectorAll("main .view")) section.hidden = section.id !== view;
  document.getElementById("tools").classList.toggle("hidden", view !== "cards");
}

function overlays() {
  for (const name of ["cut", "bleed", "safe"]) {
    document.body.classList.toggle(`show-${name}`, document.getElementById(`show-${name}`).checked);
  }
}

let pending = Promise.resolve();
function listen() {
  const events = new EventSource(withToken("events"));
  events.addEventListener("update", () => { pending = pending.then(refresh).catch(showProblem); });
  events.onerror = () => { document.getElementById("status").textContent = "reconnecting…"; };
}

function showProblem(error) {
  document.getElementById("status").textContent = `cannot reach pnp serve: ${error.message}`;
}

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("#views button")) {
    button.addEventListener("click", () => choose(button.dataset.view));
  }
  for (const id of ["deck", "search", "only-findings"]) {  // "change" too: a choice a script
    for (const type of ["input", "change"]) {                // makes (WebDriver's) fires no "input"
      document.getElementById(id).addEventListener(type, filter);
    }
  }
  for (const name of ["cut", "bleed", "safe"]) {
    document.getElementById(`show-${name}`).addEventListener("change", overlays);
  }
  overlays();
  listen();
});
