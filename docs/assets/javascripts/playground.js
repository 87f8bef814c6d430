// The playground and the small live widgets of the chapters, drawn with handtf.js.
//
// An element <div data-handtf-widget="NAME"> becomes a widget:
//   playground  - context, Lg, editable c_attn and c_proj, every intermediate,
//                 prediction, greedy completion, exhaustive check; state in the URL
//   attention   - change the context, watch the attention weights
//   projection  - drag Lg, watch the residual drown or lose
//   completing  - type a prompt, watch the completion return to (aab)*
// A link inside the element leads to the playground; it is kept, and carries
// the widget's state. Every edit redraws synchronously, inside its event.

import * as H from "./handtf.js";

const TEXT = {
  en: {
    context: "Context",
    contextHelp: (n) => `letters a and b; the model sees the last ${n}`,
    prompt: "Prompt",
    lg: "Lg",
    lgSlider: "Lg, on a logarithmic scale",
    maxLen: "Check contexts up to length",
    reset: "Reset to the hand-set weights",
    prediction: "Prediction",
    predicted: (context, char, p) => `after “${context}” comes ${char} (p = ${p})`,
    completion: "Greedy completion",
    newTokens: (n) => `${n} new tokens`,
    check: "Exhaustive check",
    checked: (correct, checked, maxLen) => `${correct} of ${checked} valid contexts of length 2 to ${maxLen} right`,
    margin: "smallest margin",
    firstFailure: "first failing context",
    expected: (context, char) => `“${context}” (should be followed by ${char})`,
    none: "none",
    weights: "Weights",
    weightsHelp:
      "Click a cell and type a number, or move with the arrow keys and press Enter. " +
      "Enter keeps the value, Escape drops it. Edited cells have a dashed border.",
    edited: (n) => (n === 1 ? "1 weight edited" : `${n} weights edited`),
    // what the status line says (a live region) after an edit, an edit that changes nothing, and a reset
    changed: (cell, old) => `${cell} (was ${old}).`,
    unchanged: (cell) => `${cell}: unchanged.`,
    restored: (lg) => `Hand-set weights restored, Lg = ${lg}.`,
    intermediates: "Every intermediate, for the last five tokens",
    shareHelp: "The address bar holds the whole state: copy it to send this model to someone.",
    badChar: (char, position) => `“${char}” at position ${position} (counting from 0, as the tokenizer does) is not a token: use only a and b.`,
    stale: "The results below are still those of the last valid input.",
    empty: "Type at least one letter, a or b.",
    notNumber: (text) => `“${text}” is not a number; type one such as 1024, -1 or 0.5.`,
    badLg: (text) => `Lg must be a positive number, got “${text}”.`,
    lgOverflow: (text) => `Lg = ${text} is too large: the model's numbers would overflow (stop being finite). Try a smaller one.`,
    tooLarge: (text) => `“${text}” is too large: a weight must be a finite number, at most about 1.8e308.`,
    notFinite: "With these weights the model's numbers are no longer finite (they overflow), so it predicts nothing. Make a weight smaller or reset.",
    partlyFinite:
      "With these weights some of the model's intermediate numbers are no longer finite (they overflow, shown as inf); " +
      "its logits still are, so it still predicts.",
    thirds: "Columns of c_attn",
    all: "all",
    badMaxLen: (text) => `The length must be a whole number from 2 to ${MAX_LEN_LIMIT}, got “${text}”.`,
    badLink: (part) => `This link's “${part}” was not understood and is ignored.`,
    moreLinkProblems: (n) => `And ${n} more parts of the link were not understood.`,
    // a weight cell is named by what it shows: its value first (the visible text), then where it is
    cell: (name, row, col, value, edited) => `${value}, ${name}, row ${row}, column ${col}${edited ? ", edited" : ""}`,
    bias: "bias",
    semicolon: "; ",
    colon: ": ",
  },
  zh: {
    context: "上下文",
    contextHelp: (n) => `只含 a 和 b；模型只看最后 ${n} 个词元`,
    prompt: "提示词",
    lg: "Lg",
    lgSlider: "Lg（对数刻度）",
    maxLen: "穷举检查的最大长度",
    reset: "恢复手工设定的权重",
    prediction: "预测",
    predicted: (context, char, p) => `“${context}”之后是 ${char}（p = ${p}）`,
    completion: "贪心续写",
    newTokens: (n) => `${n} 个新词元`,
    check: "穷举检查",
    checked: (correct, checked, maxLen) => `长度 2 到 ${maxLen} 的 ${checked} 个合法上下文中，预测正确 ${correct} 个`,
    margin: "最小差距",
    firstFailure: "第一个出错的上下文",
    expected: (context, char) => `“${context}”（后面应是 ${char}）`,
    none: "无",
    weights: "权重",
    weightsHelp: "点击一个单元格并输入数字，或用方向键移到它上面再按 Enter。Enter 保留新值，Esc 放弃。改过的单元格带有虚线边框。",
    edited: (n) => `已修改 ${n} 个权重`,
    changed: (cell, old) => `${cell}（原为 ${old}）。`,
    unchanged: (cell) => `${cell}：未改变。`,
    restored: (lg) => `已恢复手工设定的权重，Lg = ${lg}。`,
    intermediates: "全部中间结果（最后五个词元）",
    shareHelp: "地址栏里保存着全部状态：复制它，就能把这个模型发给别人。",
    badChar: (char, position) => `位置 ${position}（与分词器一样从 0 数起）上的“${char}”不是词元：只能用 a 和 b。`,
    stale: "下面的结果仍是上一次有效输入的结果。",
    empty: "请至少输入一个字母 a 或 b。",
    notNumber: (text) => `“${text}”不是数字；请输入 1024、-1 或 0.5 这样的数。`,
    badLg: (text) => `Lg 必须是正数，而这里是“${text}”。`,
    lgOverflow: (text) => `Lg = ${text} 太大：模型算出的数会溢出（不再是有限数）。请换一个小一些的值。`,
    tooLarge: (text) => `“${text}”太大：权重必须是有限数，最大约为 1.8e308。`,
    notFinite: "用这些权重，模型算出的数不再是有限数（溢出了），因此它无法预测。请把某个权重改小，或恢复原值。",
    partlyFinite: "用这些权重，模型的一些中间结果不再是有限数（溢出了，显示为 inf）；它的 logits 仍是有限数，所以仍能预测。",
    thirds: "c_attn 显示的列",
    all: "全部",
    badMaxLen: (text) => `长度必须是 2 到 ${MAX_LEN_LIMIT} 之间的整数，而这里是“${text}”。`,
    badLink: (part) => `链接中的“${part}”无法识别，已忽略。`,
    moreLinkProblems: (n) => `链接中另有 ${n} 处无法识别。`,
    cell: (name, row, col, value, edited) => `${value}，${name}，${row} 行，${col} 列${edited ? "，已修改" : ""}`,
    bias: "偏置",
    semicolon: "；",
    colon: "：",
  },
};

const MAX_LEN_LIMIT = 300;
const URL_DELAY_MS = 150;
const NEW_TOKENS = 10;
const LG_STEPS = { min: -3, max: 20, step: 0.25 }; // the slider moves log2(Lg)

// The colour scheme of the page (Material's palette toggle): heat maps take the figures' colours of that scheme.
let scheme = "light";
const renderers = []; // every widget's redraw, for a change of scheme

function applyScheme() {
  scheme = document.body.getAttribute("data-md-color-scheme") === "slate" ? "dark" : "light";
  const colours = H.COLOURS[scheme];
  for (const [name, value] of Object.entries({ bg: colours.bg, ink: colours.ink, muted: colours.muted, grid: colours.grid })) {
    document.documentElement.style.setProperty(`--handtf-map-${name}`, value);
  }
}

function language() {
  return (document.documentElement.lang || "en").toLowerCase().startsWith("zh") ? "zh" : "en";
}

export function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

let uid = 0;
function newId(prefix) {
  uid += 1;
  return `handtf-${prefix}-${uid}`;
}

// ------------------------------------------------------------ state: context, Lg, edits

function defaultState() {
  return { context: "aabaa", lg: H.LG, maxLen: H.VERIFY_MAX_LEN, edits: new Map() };
}

// an edit's key: "c_attn.w.ROW.COL", "c_attn.b.COL", "c_proj.w.ROW.COL" or "c_proj.b.COL"
const KEY = /^(c_attn|c_proj)\.(w\.(\d+)\.(\d+)|b\.(\d+))$/;

// the cell a key names, and its key as the cells write it (c_attn.w.00.0 is c_attn.w.0.0); null if none
function parseKey(key) {
  const match = KEY.exec(key);
  if (!match) return null;
  const [, param, , row, col, bias] = match;
  const width = param === "c_attn" ? 3 * H.N_EMBED : H.N_EMBED;
  if (bias !== undefined) return +bias < width ? { param, part: "b", col: +bias, key: `${param}.b.${+bias}` } : null;
  return +row < H.N_EMBED && +col < width ? { param, part: "w", row: +row, col: +col, key: `${param}.w.${+row}.${+col}` } : null;
}

function modelOf(state) {
  const model = H.buildModel(state.lg);
  const attn = model.blocks[0].attn;
  for (const [key, value] of state.edits) {
    const { param, part, row, col } = parseKey(key);
    if (part === "w") attn[param].w[row][col] = value;
    else attn[param].b[col] = value;
  }
  return model;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** A typed number (a true minus sign allowed) as a finite float; null if it is not one. */
export function parseNumber(text) {
  const trimmed = String(text).trim().replace(/\u2212/g, "-");
  if (!NUMBER.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

/** Written as a number but beyond float64 (1e400): true. */
function tooLarge(text) {
  return NUMBER.test(String(text).trim().replace(/\u2212/g, "-")) && parseNumber(text) === null;
}

/** A number as a link writes it: the shortest text that reads back as the same float (-0 too), with + escaped. */
function linkNumber(value) {
  return encodeURIComponent(Object.is(value, -0) ? "-0" : String(value));
}

/** A number from a link: an unescaped + (1e+21 in an old link) reaches us as a space. */
function readLinkNumber(text) {
  return parseNumber(String(text ?? "").replace(/ /g, "+"));
}

/** Lg as the field shows it: the float the model uses, written so that it reads back exactly. */
function lgText(lg) {
  return String(lg);
}

/**
 * An Lg from the slider: 2 ** position, exact at whole positions (1024, 0.125), else rounded to 3
 * significant digits (2 ** 10.25 is 1220): the weight cells show Lg exactly, and 3 digits keep the
 * columns of c_attn narrow enough for a phone. Steps of 0.25 (a factor 1.19) stay apart.
 */
function sliderLg(position) {
  return Number.isInteger(position) ? 2 ** position : Number((2 ** position).toPrecision(3));
}

// The Lg of a valid model (a number > 0 whose model stays finite), or the message that refuses it.
function checkLgValue(value, text, t) {
  if (value === null && tooLarge(text) && !/^\s*[-\u2212]/.test(text)) return { error: t.lgOverflow(text) }; // 1e400: beyond float64
  if (value === null || !(value > 0)) return { error: t.badLg(text) };
  try {
    H.buildModel(value);
  } catch {
    return { error: t.lgOverflow(text) };
  }
  return { value };
}

/** The state in a URL query, and back. Only what differs from the hand-set model is written. */
export function stateToQuery(state) {
  const defaults = defaultState();
  const parts = [];
  if (state.context !== defaults.context) parts.push(`context=${encodeURIComponent(state.context)}`);
  if (state.lg !== defaults.lg) parts.push(`lg=${linkNumber(state.lg)}`);
  if (state.maxLen !== defaults.maxLen) parts.push(`max_len=${state.maxLen}`);
  if (state.edits.size) parts.push(`edit=${[...state.edits].map(([k, v]) => `${k}:${linkNumber(v)}`).join(",")}`);
  return parts.length ? `?${parts.join("&")}` : "";
}

const LINK_KEYS = ["context", "lg", "max_len", "edit"];
const MAX_LINK_PROBLEMS = 5; // a link of 10,000 bad edits says so in six sentences, not 10,000
const MAX_LINK_PART = 40; // characters of a part a message quotes

export function stateFromQuery(search, t) {
  const state = defaultState();
  const problems = [];
  const params = new URLSearchParams(search);
  const short = (text) => ([...text].length > MAX_LINK_PART ? `${[...text].slice(0, MAX_LINK_PART - 1).join("")}…` : text);
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    if (!LINK_KEYS.includes(key)) values.forEach((value) => problems.push(t.badLink(short(`${key}=${value}`)))); // ?Lg=2: keys are lower case
    else if (key !== "edit") values.slice(1).forEach((value) => problems.push(t.badLink(short(`${key}=${value}`)))); // the first one counts
  }
  if (params.has("context")) {
    const context = params.get("context");
    try {
      H.contextWindow(context);
      state.context = context;
    } catch {
      problems.push(t.badLink(short(`context=${context}`)));
    }
  }
  if (params.has("lg")) {
    const text = params.get("lg").replace(/ /g, "+");
    const { value, error } = checkLgValue(readLinkNumber(text), text, t);
    if (error) problems.push(`${t.badLink(short(`lg=${params.get("lg")}`))} ${error}`);
    else state.lg = value;
  }
  if (params.has("max_len")) {
    const maxLen = readLinkNumber(params.get("max_len"));
    if (Number.isInteger(maxLen) && maxLen >= 2 && maxLen <= MAX_LEN_LIMIT) state.maxLen = maxLen;
    else problems.push(t.badLink(short(`max_len=${params.get("max_len")}`)));
  }
  for (const item of params.getAll("edit").join(",").split(",").filter(Boolean)) { // every edit= of the link
    const parts = item.split(":"); // exactly CELL:VALUE
    const cell = parts.length === 2 ? parseKey(parts[0]) : null;
    const value = parts.length === 2 ? readLinkNumber(parts[1]) : null;
    if (cell && value !== null) state.edits.set(cell.key, value);
    else problems.push(t.badLink(short(item)));
  }
  const shown = problems.slice(0, MAX_LINK_PROBLEMS);
  if (problems.length > MAX_LINK_PROBLEMS) shown.push(t.moreLinkProblems(problems.length - MAX_LINK_PROBLEMS));
  return { state, problems: shown };
}

// ------------------------------------------------------------ heat maps, coloured as the figures

function shapeOf(matrix) {
  return `[${matrix.length}\u00d7${matrix[0].length}]`;
}

function rowLabels(context) {
  return [...context].map((char, i) => `${i}:${char}`);
}

const QKV_GROUPS = [["q", 0, 8], ["k", 8, 8], ["v", 16, 8]];

/**
 * One labelled heat map as an HTML table. `keys(i, j)` names an editable cell;
 * `edited` holds the keys that differ from the hand-set model.
 */
function heatmap(spec) {
  const { name, title, matrix, rows, cols, groups, keys, edited, label, text: textOf = H.cellText } = spec;
  const [nRows, nCols] = spec.visible || [matrix.length, matrix[0].length];
  const hide = (shown) => (shown ? "" : " hidden");
  const norm = H.divergingNorm(matrix);
  const head = groups
    ? `<tr><td></td>${groups.map(([text, , width]) => `<th scope="colgroup" colspan="${width}" class="handtf-group">${escape(text)}</th>`).join("")}</tr>`
    : "";
  const groupStart = new Set((groups || []).map(([, first]) => first).filter(Boolean));
  const colHead = `<tr><td></td>${cols.map((c, j) => `<th scope="col"${groupStart.has(j) ? ' class="handtf-split"' : ""}${hide(j < nCols)}>${escape(c)}</th>`).join("")}</tr>`;
  const body = matrix
    .map((row, i) => {
      const cells = row
        .map((value, j) => {
          const { fill, text } = H.cellColours(value, norm, scheme);
          const classes = [groupStart.has(j) ? "handtf-split" : "", keys && edited.has(keys(i, j)) ? "handtf-edited" : ""]
            .filter(Boolean)
            .join(" ");
          const shown = textOf(value);
          const extra = keys
            ? ` role="gridcell" tabindex="-1" data-key="${keys(i, j)}" data-row="${i}" data-col="${j}" aria-label="${escape(label(i, j, shown))}"`
            : "";
          return `<td${classes ? ` class="${classes}"` : ""} data-fill="${fill}" style="background:${fill};color:${text}"${extra}${hide(j < nCols)}>${cellHTML(shown)}</td>`;
        })
        .join("");
      const bias = keys && i === matrix.length - 1 ? ' class="handtf-bias"' : "";
      return `<tr${bias}${hide(i < nRows)}><th scope="row">${escape(rows[i])}</th>${cells}</tr>`;
    })
    .join("");
  const role = keys ? ' role="grid"' : "";
  return (
    `<figure class="handtf-map" data-name="${name}" data-shape="${shapeOf(matrix)}">` +
    `<figcaption><code>${escape(title)}</code> <span class="handtf-shape">${shapeText(spec)}</span></figcaption>` +
    `<div class="handtf-scroll"><table class="handtf-table"${role} aria-label="${escape(title)}"><thead>${head}${colHead}</thead><tbody>${body}</tbody></table></div>` +
    `</figure>`
  );
}

// A long number (0.30000000000000004) may break every 8 characters (<wbr>): its column stays narrow, its text whole.
function cellHTML(text) {
  return text.length <= 9 ? escape(text) : escape(text).replace(/(.{8})(?=.)/g, "$1<wbr>");
}

function setCell(cell, text) {
  if (cell.textContent !== text) cell.innerHTML = cellHTML(text);
}

function shapeText({ shape, visible, matrix }) {
  return shape || (visible ? `[${visible[0]}\u00d7${visible[1]}]` : shapeOf(matrix));
}

// A map of a trace always has N_CTX rows (and N_CTX columns if its columns are positions),
// the ones beyond the context hidden: a longer or shorter context then redraws it in place.
function padded(spec) {
  const [nRows, nCols] = [spec.matrix.length, spec.matrix[0].length];
  const square = spec.cols === spec.rows; // the columns are the positions too
  const rows = H.N_CTX;
  const cols = square ? H.N_CTX : nCols;
  const fill = (list, n, value) => [...list, ...Array(n - list.length).fill(value)];
  return {
    ...spec,
    visible: [nRows, nCols],
    matrix: fill(spec.matrix.map((row) => fill(row, cols, NaN)), rows, Array(cols).fill(NaN)),
    rows: fill(spec.rows, rows, ""),
    cols: fill(spec.cols, cols, ""),
  };
}

// the intermediates of a trace, with the figures' titles and labels
function intermediates(t) {
  const E = H.EMBED_LABELS;
  return {
    embedding: { title: "wte[tokens] + wpe", matrix: t.embedding, cols: E },
    qkv: { title: "qkv = x @ w + b", matrix: t.qkv, cols: [...E, ...E, ...E], groups: QKV_GROUPS },
    scores: { title: "q·kᵀ", matrix: t.scores, cols: "rows" },
    scaled_scores: { title: "q·kᵀ/√8", matrix: t.scaled_scores, cols: "rows" },
    mask: { title: "mask", matrix: t.mask, cols: "rows" },
    attention_weights: { title: "softmax(q·kᵀ/√8 + mask)", matrix: t.attention_weights, cols: "rows" },
    attention_output: { title: "softmax(·) @ v", matrix: t.attention_output, cols: E },
    projection: { title: "c_proj", matrix: t.projection, cols: E },
    residual: { title: "x + c_proj(·)", matrix: t.residual, cols: E },
    logits: { title: "logits", matrix: t.logits, cols: H.TOKEN_LABELS },
    probs: { title: "softmax(logits)", matrix: t.probs, cols: H.TOKEN_LABELS },
  };
}

function drawMaps(container, t, names) {
  const all = intermediates(t);
  const rows = rowLabels(t.context);
  draw(container, names.map((name) => padded({ name, ...all[name], rows, cols: all[name].cols === "rows" ? rows : all[name].cols })));
}

// Heat maps into `container`: in place when the maps there have the same names and shapes
// (a redraw then changes only the cells whose value changed), anew otherwise.
function draw(container, specs) {
  const figures = [...container.children];
  const same =
    figures.length === specs.length &&
    specs.every((spec, i) => figures[i].dataset.name === spec.name && figures[i].dataset.shape === shapeOf(spec.matrix));
  if (same) specs.forEach((spec, i) => update(figures[i], spec));
  else container.innerHTML = specs.map(heatmap).join("");
  markScrollable();
}

function update(figure, spec) {
  const { matrix, rows, cols, keys, edited, label, text: textOf = H.cellText } = spec;
  const [nRows, nCols] = spec.visible || [matrix.length, matrix[0].length];
  const norm = H.divergingNorm(matrix);
  setText(figure.querySelector(".handtf-shape"), shapeText(spec));
  const rowHeads = figure.querySelectorAll("tbody th");
  rows.forEach((label, i) => {
    setText(rowHeads[i], label);
    setHidden(rowHeads[i].parentElement, i >= nRows);
  });
  const colHeads = figure.querySelectorAll("thead tr:last-child th");
  cols.forEach((label, j) => {
    setText(colHeads[j], label);
    setHidden(colHeads[j], j >= nCols);
  });
  const cells = figure.querySelectorAll("tbody td");
  let k = 0;
  matrix.forEach((row, i) =>
    row.forEach((value, j) => {
      const cell = cells[k++];
      setHidden(cell, j >= nCols);
      const { fill, text } = H.cellColours(value, norm, scheme);
      const shown = textOf(value);
      setCell(cell, shown);
      if (cell.dataset.fill !== fill) {
        cell.dataset.fill = fill;
        cell.style.background = fill;
        cell.style.color = text;
      }
      if (keys) {
        cell.classList.toggle("handtf-edited", edited.has(keys(i, j)));
        const name = label(i, j, shown);
        if (cell.getAttribute("aria-label") !== name) cell.setAttribute("aria-label", name);
      }
    }),
  );
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function setHidden(node, hidden) {
  if (node.hidden !== hidden) node.hidden = hidden;
}

// A map wider than the page scrolls sideways, and can then be scrolled with the keyboard.
// Measured once per frame, after the redraw, all reads before all writes (no layout thrashing).
let scrollCheck = 0;
function markScrollable() {
  if (scrollCheck) return;
  scrollCheck = requestAnimationFrame(() => {
    scrollCheck = 0;
    const scrolls = [...document.querySelectorAll(".handtf-scroll")].filter((s) => !s.querySelector("[role=grid]"));
    markScrollRegions(scrolls);
  });
}

// each box that is wider than it shows becomes a tab stop named after its heading; the others not
// (all reads, then all writes: one layout); induction.js marks its maps with it too
export function markScrollRegions(scrolls) {
  const wide = scrolls.map((scroll) => scroll.scrollWidth > scroll.clientWidth + 1);
  scrolls.forEach((scroll, i) => {
    if (wide[i]) {
      scroll.tabIndex = 0;
      scroll.setAttribute("role", "region");
      scroll.setAttribute("aria-label", scroll.previousElementSibling.textContent);
    } else {
      scroll.removeAttribute("tabindex");
      scroll.removeAttribute("role");
      scroll.removeAttribute("aria-label");
    }
  });
}

// ------------------------------------------------------------ controls

function contextControl(t, labelText, value) {
  const id = newId("context");
  const help = newId("help");
  return (
    `<div class="handtf-field"><label for="${id}">${labelText}</label> ` +
    `<input id="${id}" class="handtf-context" type="text" value="${escape(value)}" spellcheck="false" autocomplete="off" ` +
    `autocapitalize="off" inputmode="latin" pattern="[ab]+" aria-describedby="${help}"> ` +
    `<span id="${help}" class="handtf-help">${t.contextHelp(H.N_CTX)}</span></div>`
  );
}

function lgControl(t, lg) {
  const slider = newId("lg-slider");
  const number = newId("lg");
  return (
    `<div class="handtf-field"><label for="${number}">${t.lg}</label> ` +
    `<input id="${slider}" class="handtf-lg-slider" type="range" min="${LG_STEPS.min}" max="${LG_STEPS.max}" step="${LG_STEPS.step}" ` +
    `value="${Math.log2(lg)}" aria-label="${t.lgSlider}" aria-valuetext="Lg = ${lgText(lg)}"> ` +
    `<input id="${number}" class="handtf-lg" type="text" inputmode="decimal" value="${lgText(lg)}" size="8" spellcheck="false"></div>`
  );
}

function message(root) {
  return root.querySelector(".handtf-message");
}

// a refused input leaves the results of the last valid one on screen: staleNote says so, and they are
// marked (playground.css: a dashed rule and grey, at full contrast; dimming them put their text under 4.5:1)
function say(root, text, staleNote) {
  const stale = Boolean(text && staleNote);
  message(root).textContent = stale ? `${text} ${staleNote}` : text || "";
  root.classList.toggle("handtf-stale", stale);
  for (const results of root.querySelectorAll(".handtf-results, .handtf-maps:not(.handtf-weights), p.handtf-prediction")) {
    results.toggleAttribute("data-handtf-stale", stale);
  }
}

// the context input: a valid context updates the state, an invalid one explains itself
function readContext(input, t) {
  const text = input.value;
  try {
    H.contextWindow(text);
    input.removeAttribute("aria-invalid");
    return { value: text };
  } catch {
    input.setAttribute("aria-invalid", "true");
    if (!text.length) return { error: t.empty };
    const position = [...text].findIndex((c) => !H.CHARS.includes(c));
    const char = [...text][position];
    return { error: t.badChar(H.printable(char) ? char : H.escapedChar(char), position) }; // a typed U+202E cannot turn the message around
  }
}

function readLg(input, t) {
  const { value, error } = checkLgValue(parseNumber(input.value), input.value, t);
  if (error) {
    input.setAttribute("aria-invalid", "true");
    return { error };
  }
  input.removeAttribute("aria-invalid");
  return { value };
}

function predictionText(t, trace) {
  const last = trace.probs[trace.probs.length - 1];
  const index = H.argmax(last);
  return t.predicted(trace.context, H.CHARS[index], H.formatNumber(last[index]));
}

function completionHTML(context, model) {
  const text = H.complete(context, NEW_TOKENS, model);
  return `<code>${escape(context)}<mark>${escape(text.slice(context.length))}</mark></code>`;
}

function checkHTML(t, result, maxLen) {
  const failure = result.failures.length ? t.expected(...result.failures[0]) : t.none;
  const ok = result.correct === result.checked;
  return (
    `<span class="${ok ? "handtf-ok" : "handtf-bad"}">${t.checked(result.correct, result.checked, maxLen)}</span>${t.semicolon}` +
    `${t.margin} <code>${H.formatNumber(result.minMargin)}</code>${t.semicolon}${t.firstFailure}${t.colon}${failure}`
  );
}

function playgroundLink(root, state) {
  const link = root.querySelector("a.handtf-open") || root.querySelector("a[href]");
  if (!link) return;
  link.classList.add("handtf-open");
  if (!link.dataset.base) link.dataset.base = link.getAttribute("href").split("?")[0];
  link.setAttribute("href", link.dataset.base + stateToQuery(state));
}

// the context field: a valid context redraws, an invalid one explains itself
function wireContext(root, t, state, render) {
  const input = root.querySelector(".handtf-context");
  input.addEventListener("input", () => {
    const { value, error } = readContext(input, t);
    say(root, error, t.stale);
    if (error) return;
    state.context = value;
    render();
  });
}

// the Lg slider (log2 scale) and the Lg field, kept in step; returns setLg(value) for a reset
function wireLg(root, t, state, render) {
  const slider = root.querySelector(".handtf-lg-slider");
  const field = root.querySelector(".handtf-lg");
  function show(lg, moveSlider) {
    state.lg = lg;
    field.value = lgText(lg);
    field.removeAttribute("aria-invalid");
    if (moveSlider) slider.value = String(Math.log2(lg));
    slider.setAttribute("aria-valuetext", `Lg = ${lgText(lg)}`);
  }
  slider.addEventListener("input", () => {
    show(sliderLg(Number(slider.value)), false);
    say(root, "");
    render();
  });
  field.addEventListener("change", () => {
    const { value, error } = readLg(field, t);
    say(root, error, t.stale);
    if (error) return;
    show(value, true);
    render();
  });
  return (lg) => show(lg, true);
}

// ------------------------------------------------------------ the editable weights (an ARIA grid)

function weightMaps(t, state, model) {
  const attn = model.blocks[0].attn;
  const E = H.EMBED_LABELS;
  const rows = [...E, t.bias];
  const editable = (param) => (i, j) => (i < H.N_EMBED ? `${param}.w.${i}.${j}` : `${param}.b.${j}`);
  const label = (param, cols) => (i, j, shown) => t.cell(param, rows[i], cols[j], shown, state.edits.has(editable(param)(i, j)));
  return [
    {
      name: "c_attn", title: "c_attn w, b", matrix: [...attn.c_attn.w, attn.c_attn.b], rows, cols: [...E, ...E, ...E],
      groups: QKV_GROUPS, keys: editable("c_attn"), edited: state.edits, label: label("c_attn", H.QKV_LABELS), text: H.exactText,
      shape: `w [${H.N_EMBED}\u00d7${3 * H.N_EMBED}], b [${3 * H.N_EMBED}]`,
    },
    {
      name: "c_proj", title: "c_proj w, b", matrix: [...attn.c_proj.w, attn.c_proj.b], rows, cols: E,
      keys: editable("c_proj"), edited: state.edits, label: label("c_proj", E), text: H.exactText,
      shape: `w [${H.N_EMBED}\u00d7${H.N_EMBED}], b [${H.N_EMBED}]`,
    },
  ];
}

/** Arrow keys move within a grid (one tab stop per grid); Enter or a digit edits a cell. */
function gridKeyboard(container, onCommit, t, root) {
  let focusKey = null;

  function cells(grid) {
    return [...grid.querySelectorAll("td[data-key]")];
  }

  function focusCell(cell) {
    for (const other of cell.closest("table").querySelectorAll("td[data-key]")) other.tabIndex = -1;
    cell.tabIndex = 0;
    cell.focus();
    focusKey = cell.dataset.key;
  }

  function startEdit(cell, initial) {
    if (cell.querySelector("input")) return;
    const old = cell.textContent;
    const input = document.createElement("input");
    input.type = "text";
    input.inputMode = "decimal";
    input.className = "handtf-cell-input";
    input.value = initial ?? old.replace(/\u2212/g, "-");
    input.setAttribute("aria-label", cell.getAttribute("aria-label"));
    cell.textContent = "";
    cell.appendChild(input);
    input.focus();
    if (initial === undefined) input.select();
    let done = false;
    const finish = (commit) => {
      if (done) return;
      if (commit) {
        const value = parseNumber(input.value);
        if (value === null) {
          input.setAttribute("aria-invalid", "true");
          say(root, (tooLarge(input.value) ? t.tooLarge : t.notNumber)(input.value), t.stale);
          return false;
        }
        done = true;
        focusKey = cell.dataset.key;
        onCommit(cell.dataset.key, value);
      } else {
        done = true;
        cell.innerHTML = cellHTML(old);
        say(root, "");
        focusCell(cell);
      }
      return true;
    };
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        finish(true);
      } else if (event.key === "Escape") {
        event.preventDefault();
        finish(false);
      }
      event.stopPropagation();
    });
    input.addEventListener("blur", () => {
      if (!done && finish(true) === false) finish(false);
    });
  }

  container.addEventListener("click", (event) => {
    const cell = event.target.closest("td[data-key]");
    if (cell && !event.target.closest("input")) {
      focusCell(cell);
      startEdit(cell);
    }
  });

  container.addEventListener("keydown", (event) => {
    const cell = event.target.closest("td[data-key]");
    if (!cell || event.target !== cell) return;
    const grid = cell.closest("table");
    const row = +cell.dataset.row;
    const col = +cell.dataset.col;
    const find = (r, c) => grid.querySelector(`td[data-row="${r}"][data-col="${c}"]`);
    const inRow = [...grid.querySelectorAll(`td[data-row="${row}"]`)].filter(shown); // c_attn may show one third
    const at = inRow.indexOf(cell);
    const moves = {
      ArrowUp: () => find(row - 1, col),
      ArrowDown: () => find(row + 1, col),
      ArrowLeft: () => inRow[at - 1],
      ArrowRight: () => inRow[at + 1],
      Home: () => inRow[0],
      End: () => inRow.at(-1),
    };
    if (moves[event.key]) {
      event.preventDefault();
      const next = moves[event.key]();
      if (next) focusCell(next);
    } else if (event.key === "Enter" || event.key === "F2") {
      event.preventDefault();
      startEdit(cell);
    } else if (/^[0-9.+\-]$/.test(event.key)) {
      event.preventDefault();
      startEdit(cell, event.key);
    }
  });

  // after a redraw, the grid's tab stop (and the focus, if it was on a cell) stay where they were
  return function restore(hadFocus) {
    for (const grid of container.querySelectorAll("table[role=grid]")) {
      const focused = focusKey && grid.querySelector(`td[data-key="${focusKey}"]`);
      const target = (shown(focused) && focused) || cells(grid).find(shown) || grid.querySelector("td[data-key]");
      target.tabIndex = 0;
      if (hadFocus && focusKey && target.dataset.key === focusKey) target.focus({ preventScroll: true });
    }
  };
}

// ------------------------------------------------------------ c_attn a third at a time (q, k, v), for phones

const THIRDS = ["all", ...QKV_GROUPS.map(([name]) => name)];
const NARROW = "(max-width: 700px)"; // where the 24 columns of c_attn do not fit

function thirdsControl(t) {
  const name = newId("thirds");
  const options = THIRDS.map(
    (third) => `<label><input type="radio" name="${name}" value="${third}"> ${third === "all" ? t.all : third}</label>`,
  );
  return `<fieldset class="handtf-thirds"><legend>${t.thirds}</legend>${options.join(" ")}</fieldset>`;
}

// the third a link's first c_attn edit is in, so the edited cell shows; on a phone q, else all
function firstThird(state) {
  const key = [...state.edits.keys()].find((k) => k.startsWith("c_attn"));
  if (window.matchMedia && window.matchMedia(NARROW).matches) {
    return key ? QKV_GROUPS[Math.floor(parseKey(key).col / H.N_EMBED)][0] : "q";
  }
  return "all";
}

function wireThirds(root, weights, initial) {
  const radios = [...root.querySelectorAll(".handtf-thirds input")];
  function show(third) {
    weights.dataset.third = third;
    for (const radio of radios) radio.checked = radio.value === third;
    // the grid's tab stop must be a cell that shows
    const grid = weights.querySelector('[data-name="c_attn"] table[role=grid]');
    const stop = grid && grid.querySelector('td[tabindex="0"]');
    if (stop && !shown(stop)) {
      const first = [...grid.querySelectorAll("td[data-key]")].find(shown);
      stop.tabIndex = -1;
      if (first) first.tabIndex = 0;
    }
  }
  for (const radio of radios) radio.addEventListener("change", () => radio.checked && show(radio.value));
  show(initial);
}

function shown(cell) {
  return Boolean(cell) && cell.getClientRects().length > 0;
}

// ------------------------------------------------------------ the widgets

function mountPlayground(root, t) {
  const { state, problems } = stateFromQuery(window.location.search, t);
  const weightsHelp = newId("weights-help");
  const maxLenId = newId("max-len");
  root.innerHTML =
    `<div class="handtf-controls">` +
    contextControl(t, t.context, state.context) +
    lgControl(t, state.lg) +
    `<div class="handtf-field"><label for="${maxLenId}">${t.maxLen}</label> ` +
    `<input id="${maxLenId}" class="handtf-max-len" type="number" min="2" max="${MAX_LEN_LIMIT}" step="1" value="${state.maxLen}"></div>` +
    `<div class="handtf-field"><button type="button" class="md-button handtf-reset">${t.reset}</button> ` +
    `<p class="handtf-status" role="status"><span class="handtf-announce"></span> <span class="handtf-edits"></span></p></div>` +
    `</div>` +
    `<p class="handtf-message" role="alert"></p>` +
    `<dl class="handtf-results" aria-live="polite">` +
    `<dt>${t.prediction}</dt><dd class="handtf-prediction"></dd>` +
    `<dt>${t.completion} <span class="handtf-help">(${t.newTokens(NEW_TOKENS)})</span></dt><dd class="handtf-completion"></dd>` +
    `<dt>${t.check}</dt><dd class="handtf-check"></dd></dl>` +
    `<p class="handtf-help">${t.shareHelp}</p>` +
    `<h2 class="handtf-heading">${t.weights}</h2><p id="${weightsHelp}" class="handtf-help">${t.weightsHelp}</p>` +
    thirdsControl(t) +
    `<div class="handtf-weights handtf-maps"></div>` +
    `<h2 class="handtf-heading">${t.intermediates}</h2>` +
    `<div class="handtf-intermediates handtf-maps"></div>`;

  const maxLenInput = root.querySelector(".handtf-max-len");
  const weights = root.querySelector(".handtf-weights");
  wireThirds(root, weights, firstThird(state));
  const announce = (text) => setText(root.querySelector(".handtf-announce"), text);
  const restore = gridKeyboard(weights, (key, value) => {
    const old = state.edits.has(key) ? state.edits.get(key) : baseValue(key);
    state.edits.set(key, value);
    if (value === baseValue(key)) state.edits.delete(key); // back to the hand-set value: no longer an edit
    say(root, "");
    delete weights.dataset.drawn; // the edited cell holds an input: draw the weights again in any case
    render(true);
    const name = weights.querySelector(`td[data-key="${key}"]`).getAttribute("aria-label");
    announce(Object.is(old, value) ? t.unchanged(name) : t.changed(name, H.exactText(old)));
  }, t, root);

  function baseValue(key) {
    const { param, part, row, col } = parseKey(key);
    const base = H.buildModel(state.lg).blocks[0].attn[param];
    return part === "w" ? base.w[row][col] : base.b[col];
  }

  function render(keepFocus = false) {
    const model = modelOf(state);
    let finite = true;
    try {
      H.checkFiniteModel(model);
    } catch {
      finite = false; // the edited weights overflow: no prediction, and a message instead of "p = nan"
    }
    if (finite) {
      const trace = H.trace(state.context, model);
      root.querySelector(".handtf-prediction").textContent = predictionText(t, trace);
      root.querySelector(".handtf-completion").innerHTML = completionHTML(state.context, model);
      const checkKey = stateToQuery({ ...state, context: "" }); // the check does not depend on the context
      const check = root.querySelector(".handtf-check");
      if (check.dataset.drawn !== checkKey) {
        check.innerHTML = checkHTML(t, H.verify(state.maxLen, model), state.maxLen);
        check.dataset.drawn = checkKey;
      }
      const names = Object.keys(intermediates(trace));
      drawMaps(root.querySelector(".handtf-intermediates"), trace, names);
      // an intermediate that overflowed (scores of -inf) is said so, unless the message area says something else
      const partly = names.some((name) => !trace[name].every((row) => row.every(Number.isFinite)));
      const said = message(root).textContent;
      if (partly && !said) message(root).textContent = t.partlyFinite;
      else if (!partly && said === t.partlyFinite) message(root).textContent = "";
    } else {
      say(root, t.notFinite, t.stale);
    }
    root.querySelector(".handtf-edits").textContent = state.edits.size ? t.edited(state.edits.size) : "";
    const weightsKey = stateToQuery({ ...state, context: "", maxLen: H.VERIFY_MAX_LEN }); // Lg and the edits
    const redrawWeights = weights.dataset.drawn !== weightsKey;
    if (redrawWeights) {
      draw(weights, weightMaps(t, state, model));
      weights.dataset.drawn = weightsKey;
      // each grid's instructions, read when the focus enters it (not on a wrapper no reader announces)
      for (const grid of weights.querySelectorAll("table[role=grid]")) grid.setAttribute("aria-describedby", weightsHelp);
    }
    if (redrawWeights) restore(keepFocus); // last: focusing lays the page out, once every change is made
    clearTimeout(urlUpdate); // the address bar follows once the edits pause (browsers limit how often it may change)
    urlUpdate = setTimeout(showStateInURL, URL_DELAY_MS);
  }

  let urlUpdate = 0;
  function showStateInURL() {
    const query = stateToQuery(state);
    if (window.location.search !== query) {
      window.history.replaceState(null, "", window.location.pathname + query + window.location.hash);
    }
    for (const link of document.querySelectorAll("a[hreflang]")) {
      const href = link.href.split("?")[0] + query; // the other language opens the same model
      if (link.href !== href) link.href = href;
    }
  }

  wireContext(root, t, state, render);
  const setLg = wireLg(root, t, state, render);
  maxLenInput.addEventListener("input", () => {
    const value = parseNumber(maxLenInput.value);
    if (!Number.isInteger(value) || value < 2 || value > MAX_LEN_LIMIT) {
      maxLenInput.setAttribute("aria-invalid", "true");
      say(root, t.badMaxLen(maxLenInput.value), t.stale);
      return;
    }
    maxLenInput.removeAttribute("aria-invalid");
    say(root, "");
    state.maxLen = value;
    render();
  });
  root.querySelector(".handtf-reset").addEventListener("click", () => {
    state.edits.clear();
    setLg(H.LG);
    say(root, "");
    render();
    announce(t.restored(lgText(H.LG)));
  });
  say(root, problems.join(" "));
  renderers.push(render);
  render();
}

// A chapter's widget: its controls, then its results; the link inside it leads to the playground.
function mountSmall(root, t, { context, controls, results, draw }) {
  const link = root.querySelector("a[href]");
  const state = { ...defaultState(), context: root.dataset.context || context };
  root.insertAdjacentHTML("afterbegin", controls(state) + `<p class="handtf-message" role="alert"></p>` + results);
  function render() {
    draw(state);
    playgroundLink(root, state);
  }
  if (root.querySelector(".handtf-context")) wireContext(root, t, state, render);
  if (root.querySelector(".handtf-lg")) wireLg(root, t, state, render);
  if (link) root.appendChild(link.closest("p") || link);
  renderers.push(render);
  render();
}

function mountAttention(root, t) {
  mountSmall(root, t, {
    context: "aabaa",
    controls: (state) => contextControl(t, t.context, state.context),
    results: `<p class="handtf-prediction" aria-live="polite"></p><div class="handtf-maps"></div>`,
    draw(state) {
      const trace = H.trace(state.context, H.MODEL);
      root.querySelector(".handtf-prediction").textContent = `${t.prediction}${t.colon}${predictionText(t, trace)}`;
      drawMaps(root.querySelector(".handtf-maps"), trace, ["attention_weights", "attention_output"]);
    },
  });
}

function mountProjection(root, t) {
  mountSmall(root, t, {
    context: "aabaa",
    controls: (state) => lgControl(t, state.lg),
    results:
      `<dl class="handtf-results" aria-live="polite"><dt>${t.prediction}</dt><dd class="handtf-prediction"></dd>` +
      `<dt>${t.check}</dt><dd class="handtf-check"></dd></dl><div class="handtf-maps"></div>`,
    draw(state) {
      const model = H.buildModel(state.lg);
      const trace = H.trace(state.context, model);
      root.querySelector(".handtf-prediction").textContent = predictionText(t, trace);
      root.querySelector(".handtf-check").innerHTML = checkHTML(t, H.verify(state.maxLen, model), state.maxLen);
      drawMaps(root.querySelector(".handtf-maps"), trace, ["residual", "probs"]);
    },
  });
}

function mountCompleting(root, t) {
  mountSmall(root, t, {
    context: "bbbbb",
    controls: (state) => contextControl(t, t.prompt, state.context),
    results:
      `<dl class="handtf-results" aria-live="polite"><dt>${t.completion} <span class="handtf-help">(${t.newTokens(NEW_TOKENS)})</span></dt>` +
      `<dd class="handtf-completion"></dd></dl>`,
    draw(state) {
      root.querySelector(".handtf-completion").innerHTML = completionHTML(state.context, H.MODEL);
    },
  });
}

const WIDGETS = { playground: mountPlayground, attention: mountAttention, projection: mountProjection, completing: mountCompleting };

function mountAll() {
  const t = TEXT[language()];
  applyScheme();
  new MutationObserver(() => {
    applyScheme();
    renderers.forEach((render) => render());
  }).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  for (const root of document.querySelectorAll("[data-handtf-widget]")) {
    if (root.dataset.handtfMounted) continue;
    const mount = WIDGETS[root.dataset.handtfWidget];
    if (!mount) throw new Error(`unknown handtf widget "${root.dataset.handtfWidget}"; known: ${Object.keys(WIDGETS).join(", ")}`);
    root.dataset.handtfMounted = "true";
    root.classList.add("handtf-widget");
    mount(root, t);
  }
  window.addEventListener("resize", markScrollable);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
else mountAll();
