// "Your run beside the course's": a student chooses or drops the results file their own lab run saved, and
// the module page shows their values beside the course's in each After-the-Lab box, each claim of those
// boxes checked on their run, and the demos playing their model.  Loaded only when used: the page's
// {{< your-run >}} box (your-run.lua) imports this on the first file chosen or dropped, or at load when
// this device remembers a run.  Nothing leaves the browser; the file is data, never markup (every string
// from it reaches the page through textContent).  It knows no module: the box names the page's module, and
// the module's files say what to compare (after-the-lab.json) and claim (claims.json).
//
// What it fetches, all from the site itself: vendor/run-libs.js (jsonata, the JSON-schema validator),
// data/<id>/results.json and results.schema.json, schemas/provenance.schema.json and lab-run.schema.json,
// and the module's claims.json and after-the-lab.json.
import {evaluateClaims, boxValue} from "./run-claims.js";
import {checkFile, describeNonFinite, MAX_BYTES} from "./run-file.js";

const STORE = (id) => `course-run:${id}`;        // localStorage: the file's text, per module
const CHOICE = (id) => `course-run-demos:${id}`; // localStorage: which model the demos play
export const RUN_EVENT = "course:run";           // window event: the demos' `results` switches (demo-setup.ojs)

// where this writes: the empty slot the course's filter (your-run-slots.lua) puts in each After-the-Lab box
const slotOf = (box) => [...document.querySelectorAll(".your-run-slot")].find((slot) => slot.dataset.box === box);

const url = (path) => new URL(path, document.baseURI).href;
async function json(path) {
  const r = await fetch(url(path));
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.json();
}

let ready = null;   // the module's files and the libraries, fetched once (a failed fetch is tried again next time)
function load(id) {
  ready ??= Promise.all([
    import(url("../../vendor/run-libs.js")),
    json(`../../data/${id}/results.json`), json(`../../data/${id}/results.schema.json`),
    json("../../schemas/provenance.schema.json"), json("../../schemas/lab-run.schema.json"),
    json("claims.json"), json("after-the-lab.json"),
  ]).then(([libs, course, schema, provenance, labRun, claims, boxes]) =>
    ({libs, course, schemas: {schema, provenance, labRun}, claims, boxes}), (err) => { ready = null; throw err; });
  return ready;
}

/** A string from the student's file as the page shows it: at most `n` characters (a file may hold anything). */
export const clip = (text, n = 80) => {
  const s = String(text);
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
};

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);   // strings become text nodes
  return node;
};

function runPhrase(run) {
  const p = run.lab_run ?? run.provenance ?? {};
  const settings = p.settings === "quick" ? "quick settings (the lab's short test run: not comparable to full settings)"
    : `${p.settings ?? "unknown"} settings`;
  const when = p.saved_at ?? p.started_at;
  return `${clip(settings)}, seed ${clip(p.seed ?? "?", 20)}, on ${clip(p.device ?? "an unknown device")}` +
    `${p.device_type ? ` (${clip(p.device_type, 20)})` : ""}` + (when ? `, saved ${String(when).slice(0, 10)}` : "");
}

/** The comparison for one After-the-Lab box: a table of its values and the list of its claims. */
async function boxCompare(jsonata, spec, course, mine, claims) {
  const table = el("table", {class: "table table-sm your-run-table"},
    el("caption", {}, "Your run beside the course's"),
    el("thead", {}, el("tr", {}, el("th", {scope: "col"}, "Measured"), el("th", {scope: "col"}, "The course's run"),
      el("th", {scope: "col"}, "Your run"))));
  const body = el("tbody");
  for (const value of spec.values) {
    const [theirs, yours] = await Promise.all([boxValue(jsonata, value, course), boxValue(jsonata, value, mine)]);
    body.append(el("tr", {}, el("th", {scope: "row"}, value.label), el("td", {}, theirs ?? "–"),
      el("td", {}, yours ?? "not in your file")));
  }
  table.append(body);
  const box = el("div", {class: "your-run-compare", "data-box": spec.id}, table);
  const mineClaims = claims.filter((c) => c.box === spec.id);
  if (mineClaims.length) {
    const list = el("ul", {class: "your-run-claims"});
    for (const c of mineClaims) {
      const item = el("li", {class: c.holds ? "holds" : "fails"},
        el("strong", {}, c.holds ? "Holds in your run: " : "Does not hold in your run: "), `${c.says}.`);
      if (!c.holds && c.usually) item.append(" ", el("span", {class: "your-run-usually"}, `What usually explains it: ${c.usually}`));
      list.append(item);
    }
    box.append(el("p", {class: "your-run-claims-title"}, "What this box claims, checked on your run:"), list);
  }
  return box;
}

function clearPage() {
  for (const node of document.querySelectorAll(".your-run-compare, .your-run-column")) node.remove();
}

/** The box's measured table (its first) gains a column of the student's values, one per row as `table.rows` lists them. */
async function tableColumn(jsonata, spec, slot, mine) {
  const table = slot.parentElement.querySelector("table:not(.your-run-table)");
  const rows = table ? [...table.tBodies[0]?.rows ?? []] : [];
  if (!table || rows.length !== spec.rows.length) {
    console.error(`your-run: box ${spec.id} expects a table of ${spec.rows.length} rows in its body, and has ${table ? rows.length : "no table"}`);
    return;
  }
  table.tHead?.rows[0]?.append(el("th", {scope: "col", class: "your-run-column"}, spec.header));
  for (const [i, row] of rows.entries()) {
    const value = await boxValue(jsonata, {of: spec.rows[i], format: spec.format}, mine);
    row.append(el("td", {class: "your-run-column"}, value ?? "–"));
  }
}

/**
 * What of the student's file is not as the course's: its numbers that were not finite, the parts it lacks and the
 * parts of an earlier lab it records in another form, each named, in sentences (run-file.js's notes).
 */
export function notesText(notes) {
  if (!notes) return "";
  const out = [];
  const odd = describeNonFinite(notes.nonFinite ?? {}).map((w) => clip(w, 120));
  if (odd.length) out.push(`Some of your values are not finite numbers (your run diverged), and show as "not a number" ` +
    `or "∞": ${odd.slice(0, 4).join(", ")}${odd.length > 4 ? `, and ${odd.length - 4} more` : ""}.`);
  const said = new Set();
  const plain = [];
  for (const m of notes.missing ?? []) {
    if (m.says) { if (!said.has(m.says)) { said.add(m.says); out.push(`${m.says[0].toUpperCase()}${m.says.slice(1)}.`); } }
    else plain.push(m.where);
  }
  const gone = [...plain, ...(notes.dropped ?? [])].map((w) => clip(w, 120));
  if (gone.length) out.push(`Your file has no ${gone.slice(0, 4).join(", ")}${gone.length > 4 ? ` and ${gone.length - 4} more parts` : ""} ` +
    `(${notes.older ? "the version of the lab you ran records them otherwise or not at all" : "it was saved before the lab recorded them"}): ` +
    "where a box needs them, it shows the course's run only.");
  return out.join(" ");
}

/** Show `mine` on the page: each box's comparison, the status and the demos' choice. */
async function show(root, files, mine, notes, turn = taking) {
  const {libs: {jsonata}, course, claims: claimsDoc, boxes} = files;
  const claims = await evaluateClaims(jsonata, claimsDoc, mine);
  if (turn !== taking) return;   // a later file came while this one was checked
  clearPage();
  const missing = [];
  for (const spec of boxes.boxes) {
    if (turn !== taking) return;
    const slot = slotOf(spec.id);
    if (!slot) { missing.push(spec.id); continue; }
    slot.append(await boxCompare(jsonata, spec, course, mine, claims));
    if (spec.table) await tableColumn(jsonata, {...spec.table, id: spec.id}, slot, mine);
  }
  // a page with After-the-Lab boxes lacks a box's slot (its callout lost the author's class, or the filter did
  // not run): the site's tests see the console error, a reader sees the boxes they can be shown
  if (missing.length && document.querySelector(".after-the-lab"))
    console.error(`your-run: no <div class="your-run-slot" data-box> for box ${missing.join(", ")} (your-run-slots.lua makes one in each After-the-Lab box)`);
  if (turn !== taking) return;
  const held = claims.filter((c) => c.holds).length;
  status(root, `Your run is loaded: ${runPhrase(mine)}. The course's: ${runPhrase(course)}. ` +
    `${held} of ${claims.length} of the module's checked claims hold in your run; ` +
    (document.querySelector(".after-the-lab") ? "each After the Lab box shows your values beside the course's."
      : "the briefing's After the Lab boxes show your values beside the course's.") +
    (notesText(notes) ? ` ${notesText(notes)}` : ""), "ok");
  root.querySelector(".your-run-loaded").hidden = false;
  demos(root, mine);
}

function status(root, text, kind) {
  const line = root.querySelector(".your-run-status");
  line.textContent = text;
  line.dataset.kind = kind;
}

/** The demos play the course's model or the student's: the choice is remembered, and demo-setup.ojs listens. */
function demos(root, mine) {
  const id = root.dataset.module;
  const choose = (which) => {
    try { localStorage.setItem(CHOICE(id), which); } catch { /* private mode: the choice lasts the visit */ }
    window.courseRun = {which, results: mine};
    window.dispatchEvent(new CustomEvent(RUN_EVENT));
    markDemos(which);
  };
  const remembered = (() => { try { return localStorage.getItem(CHOICE(id)); } catch { return null; } })();
  for (const input of root.querySelectorAll("input[name=your-run-demos]")) {
    input.checked = input.value === (remembered ?? "course");
    input.onchange = () => input.checked && choose(input.value);
  }
  choose(remembered ?? "course");
}

/** Each demo that plays recorded data (those in an After-the-Lab box) says so while it plays the student's model. */
function markDemos(which) {
  for (const note of document.querySelectorAll(".your-run-playing")) note.remove();
  if (which !== "yours") return;
  for (const demo of document.querySelectorAll(".after-the-lab div.cell.demo")) {
    demo.before(el("p", {class: "your-run-playing"}, "This demo plays your model, from your results file (",
      el("a", {href: "#your-run"}, "switch in Your run"), ")."));
  }
}

function forget(root) {
  const id = root.dataset.module;
  try { localStorage.removeItem(STORE(id)); localStorage.removeItem(CHOICE(id)); } catch { /* nothing kept */ }
  clearPage();
  markDemos("course");
  window.courseRun = {which: "course", results: null};
  window.dispatchEvent(new CustomEvent(RUN_EVENT));
  root.querySelector(".your-run-loaded").hidden = true;
  status(root, "Your run is forgotten on this device; the page shows the course's run only.", "ok");
  root.querySelector(".your-run-file")?.focus();   // the next thing to do: choose another file
}

let taking = 0;   // the last file chosen or dropped wins: an earlier one still being read shows nothing

/** Read, check and show a file the reader chose or dropped; a bad file changes nothing but the status line. */
async function take(root, file, count = 1) {
  const id = root.dataset.module;
  const mine = ++taking;
  const name = clip(file.name, 60);
  const which = count > 1 ? `You dropped ${count} files; this is the first, ${name}. ` : "";
  if (file.size > MAX_BYTES) {
    return status(root, `${which}${name} is ${(file.size / 1e6).toFixed(1)} MB; a results file is well under ` +
      `${MAX_BYTES / 1e6} MB. Choose the results file your lab saved (lab…_results.json).`, "error");
  }
  status(root, `${which}Reading ${name}…`, "busy");
  const files = await load(id);
  const text = await file.text();
  if (mine !== taking) return;
  const checked = checkFile(text, {id, file: name, ...files.schemas, course: files.course, Validator: files.libs.Validator});
  if (!checked.ok) return status(root, `${which}${checked.message}`, "error");
  let kept = true;
  try { localStorage.setItem(STORE(id), checked.text); } catch {
    kept = false;    // too big or private mode: shown, not remembered, and no older run comes back on a reload
    try { localStorage.removeItem(STORE(id)); } catch { /* nothing kept */ }
  }
  await show(root, files, checked.data, checked.notes, mine);
  if (mine !== taking) return;
  const line = root.querySelector(".your-run-status");
  if (which) line.textContent = `${which}${line.textContent}`;
  if (!kept) line.textContent += " This browser would not keep the file: your run is shown, not remembered on this device.";
}

/** The box's behaviour: called by its small loader with the file that made it load, if any. */
export async function start(root, file, count = 1) {
  if (!root.dataset.started) {
    root.dataset.started = "1";
    root.querySelector(".your-run-forget").addEventListener("click", () => forget(root));
  }
  try {
    if (file) return await take(root, file, count);
    const id = root.dataset.module;
    const kept = (() => { try { return localStorage.getItem(STORE(id)); } catch { return null; } })();
    if (!kept) return;
    const files = await load(id);
    const checked = checkFile(kept, {id, file: "the run this device remembers", ...files.schemas, course: files.course, Validator: files.libs.Validator});
    if (!checked.ok) { forget(root); return status(root, `${checked.message} It was forgotten.`, "error"); }
    await show(root, files, checked.data, checked.notes);
  } catch (err) {
    status(root, `Your run could not be shown: ${clip(err.message ?? err, 200)}. The page is as it was; check your ` +
      "connection, then choose or drop the file again.", "error");
  }
}
