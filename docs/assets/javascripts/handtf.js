// The hand-made model's forward pass in plain JavaScript: a port of handtf's numpy code.
//
// No dependencies. The weights, labels and constants come from
// handtf-model.js, which hooks/playground.py writes from the Python package on
// every build. tests/test_playground.py holds every function here to numpy:
// the logits of every sequence of 1 to 5 tokens, for the hand-set model and
// for seeded random perturbations of it, at several values of Lg.
//
// Models are plain nested arrays in Python's layout:
//   {wte: [n_vocab][n_embd], wpe: [n_ctx][n_embd],
//    blocks: [{attn: {c_attn: {w: [n_embd][3*n_embd], b: [3*n_embd]},
//                     c_proj: {w: [n_embd][n_embd],   b: [n_embd]}}}]}
// Bad input throws a TypeError or an Error that says what is wrong and what is allowed.

import {
  CHARS, EMBED_LABELS, LG, LG_PARTS, MASK_VALUE, MAX_LEN, MAX_NEW_TOKENS, MODEL, N_CTX, N_EMBED, N_VOCAB,
  PATTERN, QKV_LABELS, TOKEN_LABELS, TRACE_NAMES, VERIFY_MAX_LEN, COLOURS,
} from "./handtf-model.js";

export {
  CHARS, EMBED_LABELS, LG, MAX_LEN, MAX_NEW_TOKENS, MODEL, N_CTX, N_EMBED, N_VOCAB, PATTERN, QKV_LABELS,
  TOKEN_LABELS, TRACE_NAMES, VERIFY_MAX_LEN, COLOURS,
};

// ------------------------------------------------------------ checks at the boundary

function describe(value) {
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (value === null) return "null";
  if (value === undefined) return "undefined (nothing there)";
  if (typeof value === "object") return `an object with keys ${JSON.stringify(Object.keys(value).sort())}`;
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  return `${typeof value} ${String(value)}`;
}

function checkVector(name, value, size, what) {
  if (!Array.isArray(value) || value.length !== size) {
    throw new Error(`${name} must be an array of ${size} numbers (${what}), got ${describe(value)}`);
  }
  for (let i = 0; i < size; i++) {
    const x = value[i]; // an index loop: a hole (new Array(8)) is undefined here, where forEach would skip it
    if (typeof x !== "number") throw new TypeError(`${name}[${i}] must be a number, got ${describe(x)}`);
    if (!Number.isFinite(x)) throw new Error(`${name} must not contain NaN or inf, got ${x} at index ${i}`);
  }
}

function checkMatrix(name, value, rows, cols, what) {
  if (!Array.isArray(value) || (rows !== undefined && value.length !== rows)) {
    const size = rows === undefined ? "" : ` of ${rows} rows`;
    throw new Error(`${name} must be an array${size} (${what}), got ${describe(value)}`);
  }
  for (let i = 0; i < value.length; i++) checkVector(`${name}[${i}]`, value[i], cols, what);
}

function checkKeys(name, value, keys) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError(`${name} must be an object with keys ${keys.join(", ")}, got ${describe(value)}`);
  }
  const got = Object.keys(value).sort();
  if (got.join() !== [...keys].sort().join()) {
    throw new Error(`${name} must have exactly the keys ${keys.join(", ")}, got ${JSON.stringify(got)}`);
  }
}

function checkDense(name, params, nIn, nOut) {
  checkKeys(name, params, ["w", "b"]);
  checkMatrix(`${name}.w`, params.w, nIn, nOut, `shape [${nIn}][${nOut}]`);
  checkVector(`${name}.b`, params.b, nOut, `shape [${nOut}]`);
}

/** Check a model's layout; return [n_vocab, n_ctx, n_embd]. */
export function checkModel(model) {
  checkKeys("model", model, ["wte", "wpe", "blocks"]);
  const { wte, wpe, blocks } = model;
  const nEmbd = Array.isArray(wte) && Array.isArray(wte[0]) ? wte[0].length : undefined;
  if (!nEmbd) throw new Error(`model.wte must be a non-empty array of rows [n_vocab][n_embd], got ${describe(wte)}`);
  checkMatrix("model.wte", wte, wte.length, nEmbd, "[n_vocab][n_embd]");
  if (!Array.isArray(wpe) || wpe.length === 0) {
    throw new Error(`model.wpe must be a non-empty array of rows [n_ctx][n_embd], got ${describe(wpe)}`);
  }
  checkMatrix("model.wpe", wpe, wpe.length, nEmbd, `[n_ctx][n_embd] with the n_embd of wte, ${nEmbd}`);
  if (!Array.isArray(blocks)) throw new TypeError(`model.blocks must be an array of blocks, got ${describe(blocks)}`);
  blocks.forEach((block, i) => {
    // a block has attention, and a feed-forward network (mlp) in a compiled pattern or the adder
    checkKeys(`model.blocks[${i}]`, block, block && typeof block === "object" && "mlp" in block ? ["attn", "mlp"] : ["attn"]);
    checkKeys(`model.blocks[${i}].attn`, block.attn, ["c_attn", "c_proj"]);
    checkDense(`model.blocks[${i}].attn.c_attn`, block.attn.c_attn, nEmbd, 3 * nEmbd);
    checkDense(`model.blocks[${i}].attn.c_proj`, block.attn.c_proj, nEmbd, nEmbd);
    if (block.mlp) {
      checkKeys(`model.blocks[${i}].mlp`, block.mlp, ["c_fc", "c_proj"]);
      const nHidden = Array.isArray(block.mlp.c_fc?.b) ? block.mlp.c_fc.b.length : 0;
      checkDense(`model.blocks[${i}].mlp.c_fc`, block.mlp.c_fc, nEmbd, nHidden);
      checkDense(`model.blocks[${i}].mlp.c_proj`, block.mlp.c_proj, nHidden, nEmbd);
    }
  });
  return [wte.length, wpe.length, nEmbd];
}

// the models checkFiniteModel passed, as their JSON, oldest first: a redraw of the same weights checks nothing again
const FINITE_MODELS = new Map();

/**
 * As `handtf.model.weights.check_finite_model`: a model of handtf's shape (a vocabulary of N_VOCAB tokens,
 * at least N_CTX positions) whose logits are finite for every input it can see. With two tokens there
 * are 2**N_CTX full windows, and row i of a window's logits is the logits of its first i + 1 tokens
 * (the causal mask), so one pass over each of them checks every input. Returns [n_vocab, n_ctx, n_embd].
 *
 * With `everyWindow` false (as Python's `check_finite_model(model, every_window=False)`, which
 * `predict`, `nextTokenProbs` and `complete` use) only the shape is checked: the logits of the
 * windows actually run are then refused if they are not finite, as Python's `gpt` refuses them.
 * `verify` and `buildModel` check every window.
 */
export function checkFiniteModel(model, everyWindow = true) {
  const sizes = checkModel(model);
  const [nVocab, nCtx] = sizes;
  if (nVocab !== N_VOCAB || nCtx < N_CTX) {
    throw new Error(
      `model must have a vocabulary of ${N_VOCAB} tokens and at least ${N_CTX} positions, ` +
        `got wte of ${nVocab} rows and wpe of ${nCtx} rows`,
    );
  }
  if (!everyWindow) return sizes;
  const digest = JSON.stringify(model);
  if (FINITE_MODELS.has(digest)) return sizes; // these very numbers passed already
  for (let w = 0; w < 2 ** N_CTX; w++) {
    const window = Array.from({ length: N_CTX }, (_, i) => (w >> i) & 1);
    const logits = forward(window, model).logits;
    const row = logits.findIndex((r) => !r.every(Number.isFinite));
    if (row >= 0) {
      const text = window.slice(0, row + 1).map((t) => CHARS[t]).join("");
      throw new Error(`the model's logits are not finite after '${text}' (they overflow float64); use smaller weights`);
    }
  }
  FINITE_MODELS.set(digest, true);
  while (FINITE_MODELS.size > 64) FINITE_MODELS.delete(FINITE_MODELS.keys().next().value);
  return sizes;
}

// As Python's handtf.checks.finite_logits, gpt's result guard: the first sequence (of a batch) and the
// first row whose logits are not finite are named by their tokens, up to that row.
function finiteLogits(logits, tokens) {
  const row = logits.findIndex((r) => !r.every(Number.isFinite));
  if (row >= 0) {
    throw new Error(
      `the model's logits are not finite after tokens [${tokens.slice(0, row + 1).join(", ")}] (they overflow float64); ` +
        "use smaller weights",
    );
  }
  return logits;
}

function checkTokens(tokens, nVocab, nCtx) {
  if (!Array.isArray(tokens)) throw new TypeError(`tokens must be an array of token ids, got ${describe(tokens)}`);
  if (tokens.length < 1 || tokens.length > nCtx) {
    throw new Error(`a sequence must hold 1 to ${nCtx} tokens (the context length), got ${tokens.length}`);
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!Number.isInteger(t)) throw new TypeError(`token ids must be integers, got ${describe(t)}`);
    if (t < 0 || t >= nVocab) {
      throw new Error(`tokens must be token ids in 0..${nVocab - 1} (a vocabulary of ${nVocab}), got ${t}`);
    }
  }
}

function checkLg(lg) {
  if (typeof lg !== "number") throw new TypeError(`lg must be a number, got ${describe(lg)}`);
  if (!(Number.isFinite(lg) && lg > 0)) throw new Error(`lg must be a positive finite number, got ${lg}`);
}

function checkInteger(name, value) {
  if (!Number.isInteger(value)) throw new TypeError(`${name} must be an integer, got ${describe(value)}`);
}

// a count checked against its lower bound already, now against its upper one (as handtf.checks.check_int_range)
function checkAtMost(name, value, high, why) {
  const grouped = (n) => (Math.abs(n) < 1e21 ? n.toLocaleString("en-US") : String(n));
  if (value > high) throw new Error(`${name} must be at most ${grouped(high)}${why}, got ${grouped(value)}`);
}

// ------------------------------------------------------------ the tokenizer

export function tokenize(text) {
  if (typeof text !== "string") throw new TypeError(`text must be a string, got ${describe(text)}`);
  return [...text].map((char, position) => {
    const id = CHARS.indexOf(char);
    if (id < 0) {
      const allowed = CHARS.map((c) => `'${c}'`).join(" and ");
      throw new Error(`'${char}' at position ${position} is not a token; the allowed characters are ${allowed}`);
    }
    return id;
  });
}

/** The token ids the model sees for `context`: its last N_CTX tokens. */
export function contextWindow(context) {
  const tokens = tokenize(context);
  if (tokens.length === 0) throw new Error("context is empty; the model needs at least one token ('a' or 'b')");
  return tokens.slice(-N_CTX);
}

// ------------------------------------------------------------ the maths (one sequence at a time)

// [n, m] @ [m, p] -> [n, p]
function matmul(x, w) {
  const p = w[0].length;
  return x.map((row) => {
    const out = new Array(p).fill(0);
    for (let i = 0; i < row.length; i++) {
      const xi = row[i];
      const wi = w[i];
      for (let j = 0; j < p; j++) out[j] += xi * wi[j];
    }
    return out;
  });
}

// [n, m] -> [m, n]
function transpose(x) {
  return x[0].map((_, j) => x.map((row) => row[j]));
}

function add(x, y) {
  return x.map((row, i) => row.map((value, j) => value + y[i][j]));
}

// [n, n_in] -> [n, n_out]
function linear(x, { w, b }) {
  return matmul(x, w).map((row) => row.map((value, j) => value + b[j]));
}

// each row -> probabilities (the row maximum is subtracted first)
function softmax(x) {
  return x.map((row) => {
    const top = Math.max(...row);
    const exps = row.map((value) => Math.exp(value - top));
    const sum = exps.reduce((s, e) => s + e, 0);
    return exps.map((e) => e / sum);
  });
}

// [n_seq, n_seq]: 0 on and below the diagonal, MASK_VALUE above it
function causalMask(nSeq) {
  return Array.from({ length: nSeq }, (_, i) => Array.from({ length: nSeq }, (_, j) => (j > i ? MASK_VALUE : 0)));
}

// [n_seq, 3*n_embd] -> 3 of [n_seq, n_embd]
function splitThree(x) {
  const n = x[0].length / 3;
  return [0, 1, 2].map((part) => x.map((row) => row.slice(part * n, (part + 1) * n)));
}

// GPT-2's GELU, as handtf.gelu: the tanh approximation, its argument clipped at ±10 inside the tanh
function gelu(x) {
  const c = Math.sqrt(2 / Math.PI);
  const xc = Math.min(Math.max(x, -10), 10);
  return 0.5 * x * (1 + Math.tanh(c * (xc + 0.044715 * (xc * xc * xc))));
}

// [n_seq, n_embd] -> every step of one attention block with nHead heads (as causal_self_attention):
// with one head the scores and weights are [n_seq][n_seq], with several [n_head][n_seq][n_seq], as handtf.trace
function attentionSteps(x, { c_attn, c_proj }, nHead = 1) {
  const qkv = linear(x, c_attn);
  const [q, k, v] = splitThree(qkv);
  const dHead = q[0].length / nHead;
  const mask = causalMask(x.length);
  const slice = (m, h) => m.map((row) => row.slice(h * dHead, (h + 1) * dHead));
  const heads = Array.from({ length: nHead }, (_, h) => {
    const [qh, kh, vh] = [slice(q, h), slice(k, h), slice(v, h)];
    const scores = matmul(qh, transpose(kh));
    const scaled_scores = scores.map((row) => row.map((s) => s / Math.sqrt(dHead)));
    const masked_scores = add(scaled_scores, mask);
    const attention_weights = softmax(masked_scores);
    return { scores, scaled_scores, masked_scores, attention_weights, output: matmul(attention_weights, vh) };
  });
  const attention_output = x.map((_, i) => heads.flatMap((head) => head.output[i])); // the heads side by side
  const projection = linear(attention_output, c_proj);
  const perHead = (name) => (nHead === 1 ? heads[0][name] : heads.map((head) => head[name]));
  return {
    qkv, q, k, v, mask, projection, attention_output,
    scores: perHead("scores"), scaled_scores: perHead("scaled_scores"), masked_scores: perHead("masked_scores"),
    attention_weights: perHead("attention_weights"),
  };
}

/**
 * GPT-2's forward pass (as handtf.gpt) on one sequence, for a model checked by the caller: every block's
 * attention (nHead heads) and, where the block has one, its feed-forward network (GELU). `steps` are the
 * last block's intermediates, `layers` every block's in order, each with the names of handtf.trace
 * (attention_residual, pre_activation, hidden: null without a feed-forward network; residual, the block's output).
 * The one forward pass of every widget: the playground's, the induction head's and the adder's.
 */
export function forward(tokens, model, nHead = 1) {
  const token_embedding = tokens.map((t) => model.wte[t].slice());
  const position_embedding = model.wpe.slice(0, tokens.length).map((row) => row.slice());
  const embedding = add(token_embedding, position_embedding);
  let x = embedding;
  let steps = null;
  const layers = [];
  for (const block of model.blocks) {
    steps = attentionSteps(x, block.attn, nHead);
    x = add(x, steps.projection); // the residual connection
    let attention_residual = null;
    let pre_activation = null;
    let hidden = null;
    if (block.mlp) { // a position-wise feed-forward network, its own residual connection
      attention_residual = x;
      pre_activation = linear(x, block.mlp.c_fc);
      hidden = pre_activation.map((row) => row.map(gelu));
      x = add(x, linear(hidden, block.mlp.c_proj));
    }
    steps = { ...steps, attention_residual, pre_activation, hidden, residual: x };
    layers.push(steps);
  }
  const logits = matmul(x, transpose(model.wte));
  return { token_embedding, position_embedding, embedding, steps, layers, residual: x, logits };
}

// ------------------------------------------------------------ the API (as handtf's Python functions)

/** `handtf.build_model(lg)`: the hand-made model for any "large" constant lg. */
export function buildModel(lg = LG) {
  checkLg(lg);
  const build = (constant, perLg) =>
    Array.isArray(constant)
      ? constant.map((c, i) => build(c, perLg[i]))
      : typeof constant === "object"
        ? Object.fromEntries(Object.keys(constant).map((key) => [key, build(constant[key], perLg[key])]))
        : constant + lg * perLg;
  const model = build(LG_PARTS.constant, LG_PARTS.per_lg);
  try {
    checkFiniteModel(model);
  } catch (error) {
    throw new Error(`lg = ${formatG(lg)} overflows float64: ${error.message}`);
  }
  return model;
}

/**
 * `handtf.gpt`: token ids [n_seq] (or a batch [n_batch][n_seq]) -> logits [n_seq][n_vocab].
 * As Python's: any model of the layout (any vocabulary, any number of positions and blocks), and
 * logits that are not finite are refused.
 */
export function gpt(tokens, model = MODEL) {
  const sizes = checkModel(model);
  if (Array.isArray(tokens) && tokens.length && Array.isArray(tokens[0])) {
    const lengths = new Set(tokens.map((sequence) => (Array.isArray(sequence) ? sequence.length : -1)));
    if (lengths.size > 1) {
      throw new Error(`a batch of token ids must be sequences of one length, got a ragged batch of lengths ${JSON.stringify([...lengths])}`);
    }
    tokens.forEach((sequence) => checkTokens(sequence, sizes[0], sizes[1]));
    return tokens.map((sequence) => finiteLogits(forward(sequence, model).logits, sequence));
  }
  return logitsOf(tokens, model, sizes);
}

// the logits of one sequence, for a model already checked (sizes = checkModel(model)); refused if not finite
function logitsOf(tokens, model, [nVocab, nCtx]) {
  checkTokens(tokens, nVocab, nCtx);
  return finiteLogits(forward(tokens, model).logits, tokens);
}

/** `handtf.trace`: every intermediate of one forward pass over the last N_CTX tokens of `context`. */
export function trace(context, model = MODEL) {
  const tokens = contextWindow(context);
  const [nVocab, nCtx] = checkModel(model);
  if (model.blocks.length < 1) {
    throw new Error(`trace follows a model with at least one block, got ${model.blocks.length} blocks`);
  }
  checkTokens(tokens, nVocab, nCtx);
  const { token_embedding, position_embedding, embedding, steps, logits } = forward(tokens, model);
  finiteLogits(logits, tokens);
  const result = {
    context: tokens.map((t) => CHARS[t]).join(""),
    tokens,
    token_embedding,
    position_embedding,
    embedding,
    ...steps,
    logits,
    probs: softmax(logits),
  };
  // as Python's Trace.predictions, read when asked: a token beyond 'a' and 'b' (a larger vocabulary) has no character
  Object.defineProperty(result, "predictions", {
    get: () => result.probs.map((row) => untok(argmax(row))).join(""),
  });
  return result;
}

/** The index of the largest entry; the first one on a tie, and the first NaN if there is one, as numpy's argmax. */
export function argmax(row) {
  if (!Array.isArray(row) || row.length === 0) throw new Error(`row must be a non-empty array of numbers, got ${describe(row)}`);
  let best = 0;
  for (let i = 0; i < row.length; i++) {
    if (typeof row[i] !== "number") throw new TypeError(`row[${i}] must be a number, got ${describe(row[i])}`);
    if (Number.isNaN(row[i])) return i;
    if (row[i] > row[best]) best = i;
  }
  return best;
}

// a token id back to its character, as Python's untok
function untok(token) {
  if (!(token >= 0 && token < CHARS.length)) {
    throw new Error(`token must be ${CHARS.map((c, i) => `${i} ('${c}')`).join(" or ")}, got ${token}`);
  }
  return CHARS[token];
}

/** `handtf.next_token_probs`: the probability of each token after `context`. */
export function nextTokenProbs(context, model = MODEL) {
  const sizes = checkFiniteModel(model, false);
  const logits = logitsOf(contextWindow(context), model, sizes);
  const [probs] = softmax([logits[logits.length - 1]]);
  return Object.fromEntries(CHARS.map((char, i) => [char, probs[i]]));
}

/** `handtf.predict`: the most likely next character after `context`. */
export function predict(context, model = MODEL) {
  const sizes = checkFiniteModel(model, false);
  const logits = logitsOf(contextWindow(context), model, sizes);
  return CHARS[argmax(logits[logits.length - 1])];
}

/** `handtf.complete`: `context` followed by `maxNewTokens` characters, each chosen greedily. */
export function complete(context, maxNewTokens = 10, model = MODEL) {
  checkInteger("maxNewTokens", maxNewTokens);
  if (maxNewTokens < 0) throw new Error(`maxNewTokens must be 0 or more, got ${maxNewTokens}`);
  checkAtMost("maxNewTokens", maxNewTokens, MAX_NEW_TOKENS, " (MAX_NEW_TOKENS, complete's upper bound)");
  const sizes = checkFiniteModel(model, false); // the windows run below are refused if their logits are not finite
  let window = contextWindow(context); // refuse an empty or invalid context before the loop
  // each step costs the same: the model sees only the last N_CTX tokens, and there are few such windows
  const next = new Map(); // window -> the id of the token that follows it
  const added = [];
  for (let i = 0; i < maxNewTokens; i++) {
    const key = window.join();
    if (!next.has(key)) {
      const logits = logitsOf(window, model, sizes);
      next.set(key, argmax(logits[logits.length - 1]));
    }
    const token = next.get(key);
    added.push(CHARS[token]);
    window = window.length < N_CTX ? [...window, token] : [...window.slice(1), token];
  }
  return context + added.join("");
}

/** `handtf.verify`: check every valid context of length 2..maxLen; {checked, correct, minMargin, failures}. */
export function verify(maxLen = VERIFY_MAX_LEN, model = MODEL) {
  checkInteger("maxLen", maxLen);
  if (maxLen < 2) throw new Error(`maxLen must be at least 2 (the shortest valid context), got ${maxLen}`);
  checkAtMost("maxLen", maxLen, MAX_LEN, " (MAX_LEN, verify's upper bound)");
  const sizes = checkFiniteModel(model);
  const text = PATTERN.repeat(Math.floor(maxLen / PATTERN.length) + 2);
  const period = tokenize(PATTERN);
  const cache = new Map(); // window -> logits: a long (aab)* text has few distinct windows
  let checked = 0;
  let minMargin = Infinity;
  const failures = [];
  for (let phase = 0; phase < PATTERN.length; phase++) {
    // the text started at this phase: token i is period[(phase + i) % period.length]
    const tokenAt = (i) => period[(phase + i) % period.length];
    const width = Math.min(N_CTX, text.length - phase);
    for (let n = 2; n <= maxLen; n++) {
      // as handtf.next_token_logits: a prefix shorter than N_CTX reads its row of the window at the start
      const start = Math.max(n - width, 0);
      // a window depends only on where it starts within the period (linear in maxLen, no slicing)
      const key = `${width} ${(phase + start) % period.length}`;
      if (!cache.has(key)) {
        cache.set(key, logitsOf(Array.from({ length: width }, (_, i) => tokenAt(start + i)), model, sizes));
      }
      const row = cache.get(key)[n - 1 - start];
      const expected = tokenAt(n);
      const margin = row[expected] - row[1 - expected];
      checked += 1;
      minMargin = Math.min(minMargin, margin);
      if (!(margin > 0)) failures.push([text.slice(phase, phase + n), CHARS[expected]]);
    }
  }
  return { checked, correct: checked - failures.length, minMargin, failures };
}

// ------------------------------------------------------------ numbers and colours as the figures show them

// what Python's str.isprintable() refuses: controls, format characters (U+200B, the bidi controls
// U+202A-U+202E and U+2066-U+2069), surrogates, private use, unassigned, and every space but " "
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's `c.isprintable()` for one character (by the browser's Unicode version). */
export function printable(c) {
  return c === " " || !NOT_PRINTABLE.test(c);
}

/** How Python's repr writes a character it does not print: \xhh, \uhhhh or \Uhhhhhhhh. */
export function escapedChar(c) {
  const code = c.codePointAt(0);
  const hex = (width) => code.toString(16).padStart(width, "0");
  return code <= 0xff ? `\\x${hex(2)}` : code <= 0xffff ? `\\u${hex(4)}` : `\\U${hex(8)}`;
}

/**
 * Python's repr of a str: single quotes unless it holds ' and no ", backslashes escaped, and every
 * character Python does not print escaped as \xhh, \uhhhh or \Uhhhhhhhh (so a typed U+202E cannot
 * turn a message around). Unicode's categories are the browser's, which may be newer than Python's.
 */
export function pyRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const named = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
  const body = [...text]
    .map((c) => {
      if (named[c]) return named[c];
      if (c === quote) return `\\${c}`;
      return printable(c) ? c : escapedChar(c);
    })
    .join("");
  return `${quote}${body}${quote}`;
}

/** A character as a message shows it: itself if Python prints it, else its escape (pyRepr without quotes). */
export function shownChar(c) {
  return printable(c) ? c : escapedChar(c);
}

/**
 * `handtf.format_number`: rounded to `digits` decimals (0 to 100, as Python) without trailing zeros;
 * 1e6 and above as Python's %.{digits}g: `digits` significant digits, written out in full while the
 * number has no more whole digits than that (1234567 to 7 digits), else with an exponent.
 */
export function formatNumber(value, digits = 3) {
  if (typeof value !== "number") throw new TypeError(`value must be a number, got ${describe(value)}`);
  if (!Number.isInteger(digits) || digits < 0 || digits > 100) {
    throw new Error(`digits must be an integer from 0 to 100, got ${describe(digits)}`);
  }
  if (!Number.isFinite(value)) return Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
  if (Math.abs(value) >= 1e6) {
    const precision = Math.max(digits, 1); // %g reads a precision of 0 as 1
    const [mantissa, exponent] = toEven(value.toExponential(precision - 1), value, precision, true).split("e");
    const trim = (text) => (text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text);
    const e = Number(exponent);
    if (e < precision) { // %g writes it out: the significant digits with the point after e + 1 of them
      const sign = value < 0 ? "-" : "";
      const significant = mantissa.replace(/^-/, "").replace(".", "");
      return sign + trim(`${significant.slice(0, e + 1)}.${significant.slice(e + 1)}`);
    }
    return `${trim(mantissa)}e+${String(e).padStart(2, "0")}`;
  }
  let text = toEven(value.toFixed(digits), value, digits, false);
  if (text.includes(".")) text = text.replace(/0+$/, "").replace(/\.$/, "");
  return text === "-0" ? "0" : text;
}

// Python rounds a tie (a float exactly halfway, as 0.0625 to 3 decimals) to even; toFixed and
// toExponential round it away from zero. `rounded` is their text; on a tie whose kept digit would be
// odd, the value cut toward zero is written instead. `keep` counts decimals, or significant digits.
function toEven(rounded, value, keep, significant) {
  const magnitude = Math.abs(value);
  // every digit of the float (a float that can tie at these places ends within 100 decimals)
  const exact = magnitude < 1e21 ? magnitude.toFixed(100).replace(/\.?0+$/, "") : BigInt(magnitude).toString();
  const [whole, fraction = ""] = exact.split(".");
  // significant digits start at the first digit that is not 0; e is the power of 10 of that digit
  const first = whole === "0" ? fraction.search(/[1-9]/) : 0;
  const e = whole === "0" ? -(first + 1) : whole.length - 1;
  const digits = significant ? (whole === "0" ? fraction.slice(first) : whole + fraction) : whole + fraction.padEnd(keep, "0");
  const kept = significant ? keep : whole.length + keep; // how many of `digits` are kept
  if (digits.slice(kept).replace(/0+$/, "") !== "5") return rounded; // not a tie
  if (Number(digits[kept - 1]) % 2 !== 0) return rounded; // away from zero is to even here
  const sign = value < 0 ? "-" : "";
  if (significant) return `${sign}${digits[0]}${keep > 1 ? `.${digits.slice(1, keep)}` : ""}e${e < 0 ? "-" : "+"}${Math.abs(e)}`;
  return `${sign}${whole}${keep ? `.${digits.slice(whole.length, kept)}` : ""}`;
}

/** Python's f"{value:g}" of a finite number: 6 significant digits, the exponent form below 1e-4 and from 1e6 on. */
export function formatG(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new TypeError(`value must be a finite number, got ${describe(value)}`);
  }
  if (value === 0) return Object.is(value, -0) ? "-0" : "0";
  const [mantissa, power] = toEven(value.toExponential(5), value, 6, true).split("e"); // 6 digits, a tie to even
  const e = Number(power);
  const trim = (text) => (text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text);
  if (e < -4 || e >= 6) return `${trim(mantissa)}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  const sign = value < 0 ? "-" : "";
  const digits = mantissa.replace(/^-/, "").replace(".", ""); // 6 of them
  return sign + trim(e >= 0 ? `${digits.slice(0, e + 1)}.${digits.slice(e + 1)}` : `0.${"0".repeat(-e - 1)}${digits}`);
}

/** The figures' cell text: a true minus sign, and 1e+10 written 1e10. */
export function cellText(value) {
  return formatNumber(value).replace(/-/g, "\u2212").replace("e+", "e");
}

/**
 * A weight's cell text: the float the model uses, in the fewest digits that read back as exactly
 * that float (0.0002, 1.41421, 0.30000000000000004), with a true minus sign (-0 too). The exponent
 * form (1e-7, 1e21, 5e-324) is used where it is at least 3 characters shorter, so 1000 stays 1000.
 */
export function exactText(value) {
  if (typeof value !== "number") throw new TypeError(`value must be a number, got ${describe(value)}`);
  if (!Number.isFinite(value)) return cellText(value);
  const sign = value < 0 || Object.is(value, -0) ? "\u2212" : "";
  if (value === 0) return `${sign}0`;
  const [mantissa, power] = Math.abs(value).toExponential().split("e"); // the shortest digits that read back
  const digits = mantissa.replace(".", "");
  const e = Number(power);
  let fixed;
  if (e >= digits.length - 1) fixed = digits + "0".repeat(e - digits.length + 1);
  else if (e >= 0) fixed = `${digits.slice(0, e + 1)}.${digits.slice(e + 1)}`;
  else fixed = `0.${"0".repeat(-e - 1)}${digits}`;
  const exponent = `${mantissa}e${e < 0 ? "\u2212" : ""}${Math.abs(e)}`;
  return sign + (exponent.length + 3 <= fixed.length ? exponent : fixed);
}

/** The figures' colour scale for a matrix: centred on zero, logarithmic when 1 and 1024 must both show. */
export function divergingNorm(matrix) {
  if (!Array.isArray(matrix) || !matrix.every((row) => Array.isArray(row) && row.every((x) => typeof x === "number"))) {
    throw new TypeError(`matrix must be an array of rows of numbers (NaN allowed), got ${describe(matrix)}`);
  }
  const finite = matrix.flat().filter(Number.isFinite).map(Math.abs);
  let top = finite.length ? Math.max(...finite) : 1;
  top = top || 1;
  const nonzero = finite.filter((x) => x > 0);
  const smallest = nonzero.length ? Math.min(...nonzero) : 0;
  if (nonzero.length && top / smallest > 50) return symLogNorm(smallest, 2, -top, top, 10);
  return { vmin: -top, vmax: top, scale: (x) => (x + top) / (2 * top) };
}

// matplotlib's SymLogNorm: linear within ±linthresh, logarithmic outside
function symLogNorm(linthresh, linscale, vmin, vmax, base) {
  const linscaleAdj = linscale / (1 - 1 / base);
  const transform = (a) =>
    Math.abs(a) > linthresh
      ? Math.sign(a) * linthresh * (linscaleAdj + Math.log(Math.abs(a) / linthresh) / Math.log(base))
      : a * linscaleAdj;
  const low = transform(vmin);
  const high = transform(vmax);
  return { vmin, vmax, scale: (x) => (transform(x) - low) / (high - low) };
}

/** The fill and text colour of a cell holding `value`, as the figures of `scheme` ("light" or "dark") colour it. */
export function cellColours(value, norm, scheme = "light") {
  const colours = Object.hasOwn(COLOURS, scheme) ? COLOURS[scheme] : undefined;
  if (!colours) throw new Error(`scheme must be "light" or "dark", got ${describe(scheme)}`);
  if (typeof value !== "number") throw new TypeError(`value must be a number, got ${describe(value)}`);
  if (!norm || typeof norm.scale !== "function") throw new TypeError(`norm must be a norm made by divergingNorm, got ${describe(norm)}`);
  const clipped = Math.min(Math.max(value, norm.vmin), norm.vmax);
  const x = norm.scale(clipped);
  const n = colours.lut.length;
  if (Number.isNaN(x)) return { fill: "transparent", text: colours.ink };
  if (x < 0) return { fill: colours.under, text: colours.text[0] };
  if (x > 1) return { fill: colours.over, text: colours.text[n - 1] };
  const index = Math.min(Math.floor(x * n), n - 1);
  return { fill: colours.lut[index], text: colours.text[index] };
}

/** Freeze `tree` and every array and object in it (a model shared by every caller), and return it. */
export function deepFreeze(tree) {
  if (tree && typeof tree === "object") Object.values(tree).forEach(deepFreeze);
  return Object.freeze(tree);
}
deepFreeze(MODEL); // shared by every caller: nobody may change the hand-set weights in place

if (typeof window !== "undefined") {
  window.handtf = Object.freeze({
    MODEL, LG, N_CTX, CHARS, EMBED_LABELS, TOKEN_LABELS, QKV_LABELS, TRACE_NAMES, VERIFY_MAX_LEN,
    MAX_NEW_TOKENS, MAX_LEN, argmax,
    buildModel, gpt, trace, verify, predict, complete, nextTokenProbs, tokenize, contextWindow, checkModel, checkFiniteModel,
    formatNumber, formatG, printable, escapedChar, cellText, exactText, divergingNorm, cellColours,
  });
}
