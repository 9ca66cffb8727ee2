// The report page: reads the embedded data (the JSON documents of evaluate
// match, explain, lint --cross-check and select, stored as a table of
// distinct values, gzipped, base64), draws the matrix and the lists, and
// shows a pair's explanation on demand. Every string from the data goes
// into the page with textContent, never as HTML.
(function () {
  'use strict';

  // Above this many cells the matrix draws only the rows and columns in view.
  const VIRTUAL_CELLS = 40000;
  const OVERSCAN = 12;

  const $ = (id) => document.getElementById(id);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, ...kids) {
    for (const k of kids) if (k) parent.appendChild(k);
    return parent;
  }

  // ---- the data table (see report/table.go) ----
  // A reference in node i below 0 is relative: node i + r.
  class Data {
    constructor(t) {
      this.nodes = t.nodes;
      this.shapes = t.shapes;
      this.root = t.root;
      this.keyIndex = this.shapes.map((keys) => {
        const m = new Map();
        keys.forEach((k, i) => m.set(k, i));
        return m;
      });
    }
    // val rebuilds the JSON value of a reference.
    val(r) {
      const n = this.nodes[r];
      if (!Array.isArray(n)) return n;
      const ref = (x) => (x < 0 ? r + x : x);
      if (n[0] === 0) {
        const out = new Array(n.length - 1);
        for (let i = 1; i < n.length; i++) out[i - 1] = this.val(ref(n[i]));
        return out;
      }
      const keys = this.shapes[n[0] - 1];
      const o = {};
      for (let i = 0; i < keys.length; i++) o[keys[i]] = this.val(ref(n[i + 1]));
      return o;
    }
    // append adds the nodes of a later block.
    append(more) {
      for (let i = 0; i < more.length; i++) this.nodes.push(more[i]);
    }
    // get is the reference of an object's field, or -1.
    get(r, key) {
      const n = this.nodes[r];
      if (!Array.isArray(n) || n[0] === 0) return -1;
      const i = this.keyIndex[n[0] - 1].get(key);
      if (i === undefined) return -1;
      const x = n[i + 1];
      return x < 0 ? r + x : x;
    }
    // items are the references of an array's elements.
    items(r) {
      const n = this.nodes[r];
      if (!Array.isArray(n) || n[0] !== 0) return [];
      const out = new Array(n.length - 1);
      for (let i = 1; i < n.length; i++) out[i - 1] = n[i] < 0 ? r + n[i] : n[i];
      return out;
    }
    prim(r) { return r < 0 ? undefined : this.nodes[r]; }
    at(r, ...path) {
      for (const k of path) {
        if (r < 0) return -1;
        r = typeof k === 'number' ? (this.items(r)[k] ?? -1) : this.get(r, k);
      }
      return r;
    }
  }

  async function readData(id) {
    const text = $(id).textContent.trim();
    let bytes;
    if (typeof Uint8Array.fromBase64 === 'function') {
      bytes = Uint8Array.fromBase64(text);
    } else {
      const bin = atob(text);
      bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    }
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  }

  // ---- the kinds of a first difference ----
  const KINDS = [
    ['format', 'F', 'format name'],
    ['framework', 'W', 'framework name'],
    ['version', 'V', 'version'],
    ['architecture', 'A', 'architecture'],
    ['quantization', 'Q', 'quantization'],
    ['pipeline', 'P', 'diffusion pipeline'],
    ['size', 'S', 'model size'],
    ['disabled', 'D', 'runtime disabled'],
    ['other', '?', 'other'],
  ];
  const KIND_LETTER = Object.fromEntries(KINDS.map((k) => [k[0], k[1]]));
  const KIND_WORDS = Object.fromEntries(KINDS.map((k) => [k[0], k[2]]));

  // kindOf names what a difference text (OME's words) is about; only the
  // words before the values in parentheses are looked at.
  function kindOf(text) {
    const head = String(text).split(' (')[0];
    if (/pipeline|component|diffusion|library mismatch|type mismatch/.test(head)) return 'pipeline';
    if (/version/.test(head)) return 'version';
    if (/format/.test(head)) return 'format';
    if (/framework/.test(head)) return 'framework';
    if (/architecture/.test(head)) return 'architecture';
    if (/quantization/.test(head)) return 'quantization';
    return 'other';
  }

  // ---- state ----
  let D, root, models, runtimes, results, M, R;
  // The explanations are read after the page is interactive.
  let XD, explanations, explainReady;
  let shown = 0; // counts the pairs opened, so that a late one does not draw over a newer one
  let state;       // per cell: 0 not compatible, 1 compatible, 2 selectable
  let kinds;       // per cell: a kind name for a not-compatible cell
  let scores;      // per cell: the score of a selectable cell
  let probeOf;     // per cell: the probe decision's reference, or -1
  let rowCount, colCount;
  let rows = [], cols = [];  // the indexes shown, in order
  let virtual = false, rowH = 23, colW = 23, first = 0, last = -1, colFirst = 0, colLast = -1;
  let focusRow = 0, focusCol = 0, activeCell = null;

  function refText(o) {
    return o.namespace ? `${o.kind} ${o.namespace}/${o.name}` : `${o.kind} ${o.name}`;
  }
  function whereText(o) { return `${o.file}:${o.line}`; }

  function prepare(data) {
    D = new Data(data);
    root = D.root;
    models = D.val(D.get(root, 'models'));
    runtimes = D.val(D.get(root, 'runtimes'));
    M = models.length;
    R = runtimes.length;
    results = D.items(D.at(root, 'match', 'results'));
    state = new Uint8Array(M * R);
    kinds = new Array(M * R);
    scores = new Int32Array(M * R);
    probeOf = new Int32Array(M * R).fill(-1);
    rowCount = new Int32Array(M);
    colCount = new Int32Array(R);
    const kindCache = new Map();
    const reasonCache = new Map();
    for (let c = 0; c < M * R; c++) {
      const res = results[c];
      if (D.prim(D.get(res, 'compatible')) === true) {
        state[c] = 1;
        rowCount[Math.floor(c / R)]++;
        colCount[c % R]++;
        continue;
      }
      const reasonRef = D.get(res, 'reason');
      let k = reasonCache.get(reasonRef);
      if (k === undefined) {
        const reason = String(D.prim(reasonRef));
        if (reason === 'runtime is disabled') k = 'disabled';
        else if (/^model size /.test(reason)) k = 'size';
        else k = null;
        reasonCache.set(reasonRef, k);
      }
      if (k === null) {
        k = 'other';
        for (const e of D.items(D.get(res, 'entries'))) {
          const diffs = D.items(D.get(e, 'differences'));
          if (diffs.length > 0) {
            let dk = kindCache.get(diffs[0]);
            if (dk === undefined) {
              dk = kindOf(D.prim(diffs[0]));
              kindCache.set(diffs[0], dk);
            }
            k = dk;
            break;
          }
        }
      }
      kinds[c] = k;
    }
    // The probes: OME's webhook's candidates for an InferenceService of each model.
    const byKey = new Map();
    runtimes.forEach((r, j) => {
      const key = r.kind + '\u0000' + r.namespace + '\u0000' + r.name;
      if (!byKey.has(key)) byKey.set(key, []);
      byKey.get(key).push(j);
    });
    const owners = D.val(D.get(root, 'probeModels'));
    D.items(D.at(root, 'probes', 'decisions')).forEach((dec, k) => {
      const i = owners[k];
      for (const cand of D.items(D.get(dec, 'candidates'))) {
        const c = D.val(cand);
        for (const j of byKey.get(c.kind + '\u0000' + c.namespace + '\u0000' + c.name) || []) {
          const cell = i * R + j;
          if (state[cell] === 1 && probeOf[cell] < 0) {
            state[cell] = 2;
            scores[cell] = c.score;
            probeOf[cell] = dec;
          }
        }
      }
      // Remember the decision for the other compatible cells it saw.
      for (let j = 0; j < R; j++) if (state[i * R + j] === 1 && probeOf[i * R + j] < 0) probeOf[i * R + j] = dec;
    });
  }

  // ---- the header: counts and lists ----
  function counts() {
    const dl = $('counts');
    dl.textContent = '';
    let sel = 0, ok = 0;
    for (let c = 0; c < M * R; c++) { if (state[c] === 2) sel++; else if (state[c] === 1) ok++; }
    const unserved = rowCount.reduce((n, v) => n + (v === 0 ? 1 : 0), 0);
    const idle = colCount.reduce((n, v) => n + (v === 0 ? 1 : 0), 0);
    const findings = D.val(D.at(root, 'lint', 'findings'));
    const bySev = (s) => findings.filter((f) => f.severity === s).length;
    const items = [
      ['models', M], ['runtimes', R], ['pairs', M * R],
      ['selectable', sel], ['compatible, not selectable', ok],
      ['models without a runtime', unserved], ['runtimes that accept nothing', idle],
      ['lint errors', bySev('error')], ['lint warnings', bySev('warning')], ['lint notes', bySev('info')],
      ['engine', D.prim(D.get(root, 'engine'))],
      ['OME release', D.prim(D.get(root, 'omeVersion'))],
    ];
    for (const [k, v] of items) {
      const d = el('div');
      d.dataset.count = k;
      add(dl, add(d, el('dt', null, k), el('dd', null, v)));
    }
  }

  function legend() {
    const lg = $('legend');
    lg.textContent = '';
    const item = (cls, letter, words) => add(el('span'), el('b', cls, letter), el('span', null, words));
    add(lg, item('s-sel', '7', 'selectable: compatible, an entry with autoSelect: true, score shown'));
    add(lg, item('s-ok', '✓', 'compatible, not selectable'));
    add(lg, el('span', null, 'not compatible, by the first difference:'));
    for (const [k, letter, words] of KINDS) add(lg, item('k-' + k, letter, words));
  }

  // ---- the matrix ----
  function cellText(c) {
    if (state[c] === 2) return String(scores[c]);
    if (state[c] === 1) return '✓';
    return KIND_LETTER[kinds[c]];
  }
  function cellClass(c) {
    if (state[c] === 2) return 'c s-sel';
    if (state[c] === 1) return 'c s-ok';
    return 'c k-' + kinds[c];
  }
  function cellWords(c) {
    if (state[c] === 2) return `selectable, score ${scores[c]}`;
    if (state[c] === 1) return 'compatible, not selectable';
    return `not compatible: ${KIND_WORDS[kinds[c]]}`;
  }

  function matches(o, text) {
    if (!text) return true;
    const hay = [o.name, o.namespace, o.kind, ...o.formats, ...o.frameworks, ...o.architectures, ...o.quantizations]
      .join('\n').toLowerCase();
    return hay.includes(text);
  }

  function byName(list) {
    return (a, b) => {
      const x = list[a], y = list[b];
      return x.name < y.name ? -1 : x.name > y.name ? 1 : x.namespace < y.namespace ? -1 : x.namespace > y.namespace ? 1 : a - b;
    };
  }

  function choose() {
    const text = $('filter').value.trim().toLowerCase();
    const axis = $('filter-axis').value;
    const onlyUnserved = $('only-unserved').checked;
    const onlyIdle = $('only-idle').checked;
    rows = [];
    for (let i = 0; i < M; i++) {
      if (onlyUnserved && rowCount[i] !== 0) continue;
      if (axis !== 'runtimes' && !matches(models[i], text)) continue;
      rows.push(i);
    }
    cols = [];
    for (let j = 0; j < R; j++) {
      if (onlyIdle && colCount[j] !== 0) continue;
      if (axis !== 'models' && !matches(runtimes[j], text)) continue;
      cols.push(j);
    }
    const nameRows = byName(models), nameCols = byName(runtimes);
    if ($('sort-rows').value === 'matches') rows.sort((a, b) => rowCount[b] - rowCount[a] || nameRows(a, b));
    else rows.sort(nameRows);
    if ($('sort-cols').value === 'matches') cols.sort((a, b) => colCount[b] - colCount[a] || nameCols(a, b));
    else cols.sort(nameCols);
    $('shown').textContent = `${rows.length} of ${M} models × ${cols.length} of ${R} runtimes shown`;
  }

  // In virtual mode a row is: its name, a gap standing for the columns
  // before the ones drawn, the cells drawn, a gap for the columns after.
  function gap(tag, n) {
    const e = document.createElement(tag);
    e.className = 'gap';
    e.style.minWidth = e.style.width = Math.max(0, n * colW - 1) + 'px';
    return e;
  }
  const off = () => (virtual ? 2 : 1); // cells before the first drawn column

  function drawHead() {
    const head = $('matrix-head');
    head.textContent = '';
    const tr = el('tr');
    const corner = el('th', 'corner', 'models ↓   runtimes →');
    corner.scope = 'col';
    tr.appendChild(corner);
    if (virtual) tr.appendChild(gap('th', colFirst));
    for (let q = colFirst; q <= colLast; q++) {
      const j = cols[q];
      const o = runtimes[j];
      const th = el('th', 'col' + (colCount[j] === 0 ? ' idle' : ''));
      th.scope = 'col';
      th.title = `${refText(o)}\n${whereText(o)}\n${colCount[j]} model(s)`;
      th.appendChild(el('div', null, o.name));
      tr.appendChild(th);
    }
    if (virtual) tr.appendChild(gap('th', cols.length - 1 - colLast));
    head.appendChild(tr);
  }

  function drawRow(i, pos) {
    const o = models[i];
    const tr = el('tr', rowCount[i] === 0 ? 'unserved' : null);
    tr.dataset.m = String(i);
    tr.dataset.pos = String(pos);
    const th = el('th', null, o.name);
    th.scope = 'row';
    th.title = `${refText(o)}\n${whereText(o)}\n${rowCount[i]} runtime(s)`;
    tr.appendChild(th);
    if (virtual) tr.appendChild(gap('td', colFirst));
    const base = i * R;
    for (let q = colFirst; q <= colLast; q++) {
      const c = base + cols[q];
      const td = document.createElement('td');
      td.className = cellClass(c);
      td.textContent = cellText(c);
      tr.appendChild(td);
    }
    if (virtual) tr.appendChild(gap('td', cols.length - 1 - colLast));
    return tr;
  }

  function spacer(h) {
    const tr = el('tr', 'spacer');
    tr.setAttribute('aria-hidden', 'true');
    const td = el('td');
    td.colSpan = colLast - colFirst + 1 + off() + (virtual ? 1 : 0);
    td.style.height = h + 'px';
    tr.appendChild(td);
    return tr;
  }

  // drawBody draws the rows (and, in virtual mode, the columns) in view;
  // unless force, only when the view has left what is drawn.
  function drawBody(force) {
    const body = $('matrix-body');
    let from = 0, to = rows.length - 1, c0 = 0, c1 = cols.length - 1;
    if (virtual) {
      const wrap = $('matrix-wrap');
      const headH = $('matrix-head').offsetHeight;
      const corner = $('matrix-head').querySelector('th.corner');
      const headW = corner ? corner.offsetWidth : 268;
      const top = Math.max(0, wrap.scrollTop - headH);
      from = Math.max(0, Math.floor(top / rowH) - OVERSCAN);
      to = Math.min(rows.length - 1, Math.ceil((top + wrap.clientHeight) / rowH) + OVERSCAN);
      const left = Math.max(0, wrap.scrollLeft);
      c0 = Math.max(0, Math.floor(left / colW) - OVERSCAN);
      c1 = Math.min(cols.length - 1, Math.ceil((left + wrap.clientWidth - headW) / colW) + OVERSCAN);
      if (!force && from >= first && to <= last && c0 >= colFirst && c1 <= colLast) return;
      from = Math.max(0, from - OVERSCAN);
      to = Math.min(rows.length - 1, to + OVERSCAN);
      c0 = Math.max(0, c0 - OVERSCAN);
      c1 = Math.min(cols.length - 1, c1 + OVERSCAN);
    }
    const newCols = c0 !== colFirst || c1 !== colLast;
    first = from;
    last = to;
    colFirst = c0;
    colLast = c1;
    if (newCols || force) drawHead();
    // Drawing again must not take the keyboard focus away from the grid.
    const hadFocus = body.contains(document.activeElement);
    const frag = document.createDocumentFragment();
    if (virtual) frag.appendChild(spacer(from * rowH));
    for (let p = from; p <= to; p++) frag.appendChild(drawRow(rows[p], p));
    if (virtual) frag.appendChild(spacer(Math.max(0, (rows.length - 1 - to) * rowH)));
    body.textContent = '';
    body.appendChild(frag);
    if (virtual && rows.length > 0 && from <= to && cols.length > 0) {
      const td = body.querySelector('td.c');
      const h = td.parentNode.offsetHeight, w = td.offsetWidth;
      if (h > 0 && w > 0 && (h !== rowH || w !== colW)) { rowH = h; colW = w; drawBody(true); return; }
    }
    markFocus(false);
    if (hadFocus) {
      const td = cellAt(focusRow, focusCol);
      if (td) td.focus({ preventScroll: true });
    }
  }

  function redraw() {
    choose();
    // #virtual in the address draws only the rows in view at any size.
    virtual = rows.length * cols.length > VIRTUAL_CELLS || location.hash === '#virtual';
    document.body.dataset.virtual = virtual ? 'yes' : 'no';
    colFirst = 0;
    colLast = cols.length - 1;
    focusRow = Math.min(focusRow, Math.max(0, rows.length - 1));
    focusCol = Math.min(focusCol, Math.max(0, cols.length - 1));
    drawBody(true);
  }

  // ---- keyboard: one cell of the grid is in the tab order ----
  function cellAt(p, q) {
    if (q < colFirst || q > colLast) return null;
    const tr = $('matrix-body').querySelector(`tr[data-pos="${p}"]`);
    return tr ? tr.cells[q - colFirst + off()] : null;
  }
  // colOf is the column position of a drawn cell.
  const colOf = (td) => td.cellIndex - off() + colFirst;
  function markFocus(move) {
    const old = $('matrix-body').querySelector('td[tabindex]');
    if (old) old.removeAttribute('tabindex');
    if (rows.length === 0 || cols.length === 0) return;
    const td = cellAt(focusRow, focusCol);
    if (!td) return;
    td.tabIndex = 0;
    const c = rows[focusRow] * R + cols[focusCol];
    td.setAttribute('aria-label', `${models[rows[focusRow]].name} × ${runtimes[cols[focusCol]].name}: ${cellWords(c)}`);
    if (move) td.focus();
  }
  function moveTo(p, q) {
    focusRow = Math.max(0, Math.min(rows.length - 1, p));
    focusCol = Math.max(0, Math.min(cols.length - 1, q));
    if (virtual && (focusRow < first || focusRow > last || focusCol < colFirst || focusCol > colLast)) {
      const wrap = $('matrix-wrap');
      if (focusRow < first || focusRow > last) wrap.scrollTop = focusRow * rowH;
      if (focusCol < colFirst || focusCol > colLast) wrap.scrollLeft = focusCol * colW;
      drawBody(true);
    }
    markFocus(true);
  }
  function onKey(e) {
    const td = e.target.closest && e.target.closest('td.c');
    if (!td) return;
    const page = Math.max(1, Math.floor($('matrix-wrap').clientHeight / rowH) - 1);
    const keys = {
      ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
      PageUp: [-page, 0], PageDown: [page, 0],
    };
    if (keys[e.key]) {
      e.preventDefault();
      moveTo(focusRow + keys[e.key][0], focusCol + keys[e.key][1]);
    } else if (e.key === 'Home') {
      e.preventDefault();
      moveTo(e.ctrlKey ? 0 : focusRow, 0);
    } else if (e.key === 'End') {
      e.preventDefault();
      moveTo(e.ctrlKey ? rows.length - 1 : focusRow, cols.length - 1);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      open(td);
    }
  }
  function onClick(e) {
    const td = e.target.closest && e.target.closest('td.c');
    if (!td) return;
    focusRow = Number(td.parentNode.dataset.pos);
    focusCol = colOf(td);
    markFocus(true);
    open(td);
  }

  // ---- the explanation of a pair ----
  function open(td) {
    const i = Number(td.parentNode.dataset.m);
    const j = cols[colOf(td)];
    if (activeCell) activeCell.classList.remove('active');
    td.classList.add('active');
    activeCell = td;
    showPair(i, j);
  }

  function versionTable(v) {
    const t = el('table', 'versions');
    const head = add(el('tr'), el('th', null, ''), el('th', null, 'as written'), el('th', null, 'valid'),
      el('th', null, 'numbers'), el('th', null, 'parts'), el('th', null, 'v'), el('th', null, 'suffixes'));
    t.appendChild(head);
    for (const side of ['model', 'entry']) {
      const x = v[side];
      const tr = add(el('tr'), el('th', null, side));
      if (!x) {
        const td = el('td', null, 'not set');
        td.colSpan = 6;
        tr.appendChild(td);
      } else {
        const suffixes = [...x.dev.map((s) => 'dev ' + s), ...x.pre.map((s) => 'pre ' + s), ...x.build.map((s) => 'build ' + s)];
        add(tr, el('td', 'mono', x.text), el('td', null, x.valid ? 'yes' : 'no: ' + x.problem),
          el('td', 'mono', x.numbers.join('.')), el('td', null, x.parts), el('td', null, x.v ? 'yes' : 'no'),
          el('td', 'mono', suffixes.join(', ') || 'none'));
      }
      t.appendChild(tr);
    }
    const op = add(el('tr'), el('th', null, 'operator'));
    const td = el('td', 'mono', v.operator === null ? 'none (Equal)' : v.operator);
    td.colSpan = 6;
    op.appendChild(td);
    t.appendChild(op);
    return t;
  }

  function checkBlock(c) {
    const d = el('div', 'check');
    d.dataset.check = c.check;
    add(d, el('span', c.passed ? 'pass' : 'fail', c.passed ? 'PASS' : 'FAIL'), document.createTextNode(' '),
      el('b', null, c.check), document.createTextNode(': '), el('span', 'summary', c.summary));
    if (c.details.length) {
      const ul = el('ul');
      for (const x of c.details) ul.appendChild(el('li', null, x));
      d.appendChild(ul);
    }
    if (c.versions) d.appendChild(versionTable(c.versions));
    if (c.fix) add(d, add(el('div', 'fix'), el('b', null, 'fix: '), el('span', null, c.fix)));
    return d;
  }

  async function showPair(i, j) {
    const c = i * R + j;
    const m = models[i], r = runtimes[j];
    const res = D.val(results[c]);
    const box = $('detail');
    const token = ++shown;
    box.textContent = '';
    box.dataset.complete = 'no';
    box.dataset.model = String(i);
    box.dataset.runtime = String(j);
    add(box, el('h2', null, 'The pair'));
    const who = el('dl');
    add(who, el('dt', null, 'model'), add(el('dd'), el('div', 'name', refText(m)), el('div', 'where', whereText(m))));
    add(who, el('dt', null, 'runtime'), add(el('dd'), el('div', 'name', refText(r)), el('div', 'where', whereText(r))));
    box.appendChild(who);
    const verdict = el('p', 'verdict', res.compatible ? 'COMPATIBLE' : 'NOT COMPATIBLE');
    verdict.dataset.field = 'verdict';
    box.appendChild(verdict);
    const st = el('p', null, cellWords(c));
    st.dataset.field = 'state';
    box.appendChild(st);
    if (probeOf[c] >= 0) {
      const dec = D.val(probeOf[c]);
      const p = el('p', 'where');
      p.textContent = state[c] === 2
        ? `OME's webhook, for an InferenceService of this model in namespace ${dec.inferenceService.namespace} with an engine and no named runtime, ranks it with score ${scores[c]} among ${dec.candidates.length} candidate(s)` + (dec.runtime ? `; it selects ${refText(dec.runtime)}.` : '.')
        : `OME's webhook, for an InferenceService of this model in namespace ${dec.inferenceService.namespace}, does not rank it: no entry with autoSelect: true that matches, or a score of 0.`;
      box.appendChild(p);
    }
    if (!res.compatible) {
      add(box, el('h3', null, 'Reason (OME\u2019s text)'));
      const reason = el('p', 'mono', res.reason);
      reason.dataset.field = 'reason';
      box.appendChild(reason);
    }
    const waiting = el('p', 'hint', 'Reading the explanations…');
    box.appendChild(waiting);
    await explainReady;
    if (token !== shown) return;
    waiting.remove();
    const ex = XD.val(explanations[c]);
    add(box, el('h3', null, 'Runtime checks'));
    for (const ck of ex.runtimeChecks) box.appendChild(checkBlock(ck));
    for (const e of ex.entries) {
      const h = el('h3', null, `Entry ${e.index}: ${e.matched ? 'matches' : 'does not match'}`);
      h.dataset.entry = String(e.index);
      box.appendChild(h);
      if (e.differences.length) {
        const ul = el('ul', 'differences');
        for (const x of e.differences) ul.appendChild(el('li', null, x));
        box.appendChild(ul);
      }
      for (const ck of e.checks) box.appendChild(checkBlock(ck));
    }
    for (const [title, list] of [['Notes', ex.notes], ['Advice', ex.advice]]) {
      if (!list.length) continue;
      add(box, el('h3', null, title));
      const ul = el('ul');
      for (const x of list) ul.appendChild(el('li', null, x));
      box.appendChild(ul);
    }
    add(box, el('h3', null, 'The same from the command line'));
    box.appendChild(el('pre', null,
      `evaluate explain -m ${m.file} --model-name ${m.name} -r ${r.file} --runtime-name ${r.name}`));
    const raw = el('details');
    add(raw, el('summary', null, 'JSON: evaluate match and evaluate explain for this pair'));
    const pre = el('pre', null, JSON.stringify(res, null, 2) + '\n' + JSON.stringify(ex, null, 2));
    pre.dataset.field = 'json';
    raw.appendChild(pre);
    box.appendChild(raw);
    box.dataset.complete = 'yes';
  }

  // ---- the lists below the matrix ----
  function findingTable(list, withObject) {
    const t = el('table');
    const head = add(el('tr'), el('th', null, 'severity'), el('th', null, 'rule'));
    if (withObject) head.appendChild(el('th', null, 'object'));
    add(head, el('th', null, 'where'), el('th', null, 'field'), el('th', null, 'message'));
    t.appendChild(head);
    for (const f of list) {
      const tr = add(el('tr'), el('td', 'sev-' + f.severity, f.severity), el('td', 'mono', f.rule));
      if (withObject) tr.appendChild(el('td', null, refText(f.object)));
      add(tr, el('td', 'where', `${f.file}:${f.line}`), el('td', 'mono', f.field), el('td', null, f.message));
      t.appendChild(tr);
    }
    return t;
  }

  function lists() {
    const box = $('findings');
    box.textContent = '';
    const findings = D.val(D.at(root, 'lint', 'findings'));

    const unserved = findings.filter((f) => f.rule === 'unmatched-model');
    add(box, el('h2', null, `Models that no runtime accepts (${rowCount.filter((v) => v === 0).length})`));
    box.lastChild.id = 'unserved';
    box.appendChild(unserved.length ? findingTable(unserved, true) : el('p', null, 'None.'));

    const idle = [];
    colCount.forEach((v, j) => { if (v === 0) idle.push(j); });
    add(box, el('h2', null, `Runtimes that accept no model (${idle.length})`));
    box.lastChild.id = 'idle';
    if (idle.length) {
      const ul = el('ul');
      for (const j of idle) add(ul, add(el('li'), el('span', null, refText(runtimes[j]) + ' '), el('span', 'where', whereText(runtimes[j]))));
      box.appendChild(ul);
    } else box.appendChild(el('p', null, 'None.'));

    const entries = findings.filter((f) => f.rule === 'unreachable-entry');
    add(box, el('h2', null, `Entries that accept no model (${entries.length})`));
    box.appendChild(entries.length ? findingTable(entries, true) : el('p', null, 'None.'));

    const sel = D.get(root, 'select');
    if (sel >= 0 && D.prim(sel) !== null) {
      const decisions = D.val(D.get(sel, 'decisions'));
      add(box, el('h2', null, `InferenceServices (${decisions.length})`));
      box.lastChild.id = 'services';
      const t = el('table');
      t.id = 'services-table';
      t.appendChild(add(el('tr'), el('th', null, 'InferenceService'), el('th', null, 'verdict'),
        el('th', null, 'selected runtime'), el('th', null, 'model'), el('th', null, 'candidates'), el('th', null, 'message and warnings')));
      for (const d of decisions) {
        const verdict = d.admitted ? 'ADMITTED' : 'REJECTED';
        const tr = add(el('tr'), el('td', null, refText(d.inferenceService)), el('td', d.admitted ? 'pass' : 'fail', verdict),
          el('td', null, d.runtime ? refText(d.runtime) : (d.admitted ? 'no selection' : '')),
          el('td', null, d.model ? refText(d.model) : ''),
          el('td', null, d.candidates.map((c) => `${c.name} (${c.score})`).join(', ')),
          el('td', null, [d.message, ...d.warnings.map((w) => 'warning: ' + w)].filter(Boolean).join('\n')));
        t.appendChild(tr);
      }
      box.appendChild(t);
    }

    add(box, el('h2', null, `Lint findings by object (${findings.length})`));
    box.lastChild.id = 'lint';
    const groups = new Map();
    for (const f of findings) {
      const key = JSON.stringify([f.object.kind, f.object.namespace, f.object.name, f.file]);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(f);
    }
    if (!groups.size) box.appendChild(el('p', null, 'None.'));
    for (const list of groups.values()) {
      const d = el('details');
      const sev = ['error', 'warning', 'info'].map((s) => [s, list.filter((f) => f.severity === s).length]).filter((x) => x[1]);
      add(d, add(el('summary'), el('span', null, refText(list[0].object) + ' '), el('span', 'where', list[0].file + ' '),
        el('span', null, '(' + sev.map(([s, n]) => `${n} ${s}`).join(', ') + ')')));
      d.appendChild(findingTable(list, false));
      box.appendChild(d);
    }
  }

  // For tests and the curious: the documents the page holds, as the
  // commands print them (evaluate match, explain, lint --cross-check,
  // select -o json).
  async function documents() {
    await explainReady;
    const out = {};
    for (const k of ['match', 'lint', 'select', 'probes']) {
      const r = D.get(root, k);
      out[k] = r < 0 ? null : D.val(r);
    }
    out.explain = XD.val(XD.explainRoot);
    return out;
  }

  // ---- a fleet's page: a cluster at a time ----
  // The clusters (data-fleet: empty for one cluster's page) are listed in
  // the header, a row a cluster with its counts; the cluster filter, or a
  // cluster's name in the list, shows that cluster's matrix and lists.
  let fleet = null;
  async function readFleet() {
    const block = $('data-fleet');
    if (!block || !block.textContent.trim()) return;
    fleet = await readData('data-fleet');
    const sel = el('select');
    sel.id = 'cluster';
    fleet.clusters.forEach((c, i) => {
      const o = el('option', null, c.error ? `${c.cluster.name} (not read)` : c.cluster.name);
      o.value = String(i);
      o.disabled = Boolean(c.error);
      add(sel, o);
    });
    const first = fleet.clusters.findIndex((c) => !c.error);
    sel.value = String(first);
    sel.addEventListener('change', () => showCluster(Number(sel.value)));
    $('controls').prepend(add(el('label', null, 'Cluster '), sel));
    clusterTable(first);
  }
  function clusterTable(current) {
    const box = $('clusters');
    box.textContent = '';
    box.hidden = false;
    add(box, el('h2', null, `Clusters (${fleet.clusters.length})`));
    const head = el('tr');
    for (const h of ['cluster', 'contexts', 'server', 'kube-system UID', 'models', 'runtimes', 'compatible pairs', 'models with no runtime', 'InferenceServices rejected', 'not read']) {
      add(head, el('th', null, h));
    }
    const body = el('tbody');
    fleet.clusters.forEach((c, i) => {
      const s = c.summary || {};
      const name = el('td');
      if (c.error) {
        name.textContent = c.cluster.name;
      } else {
        const b = el('button', null, c.cluster.name);
        b.type = 'button';
        b.addEventListener('click', () => { $('cluster').value = String(i); showCluster(i); });
        add(name, b);
      }
      add(body, add(el('tr', i === current ? 'current' : null), name, el('td', null, c.cluster.contexts.join(', ')),
        el('td', null, c.cluster.server), el('td', null, c.cluster.uid || ''), el('td', null, s.Models ?? ''), el('td', null, s.Runtimes ?? ''),
        el('td', null, s.Compatible ?? ''), el('td', null, s.Unserved ?? ''), el('td', null, s.Rejected ?? ''), el('td', null, c.error || '')));
    });
    add(box, add(el('table'), add(el('thead'), head), body));
  }
  function showCluster(i) {
    const c = fleet.clusters[i];
    shown++; // an explanation still on its way does not draw over this cluster
    prepare({ nodes: c.main.nodes.slice(), shapes: c.main.shapes, root: c.main.root });
    D.append(c.explain.nodes);
    XD = D;
    XD.explainRoot = c.explain.root;
    explanations = D.items(D.get(c.explain.root, 'explanations'));
    explainReady = Promise.resolve();
    counts();
    legend();
    redraw();
    lists();
    const detail = $('detail');
    detail.textContent = '';
    add(detail, el('p', 'hint', 'Click a cell, or move to it with the arrow keys and press Enter, to see evaluate explain for that pair.'));
    clusterTable(i);
    document.body.dataset.cluster = c.cluster.name;
  }

  async function main() {
    const t0 = performance.now();
    let data;
    try {
      data = await readData('data');
    } catch (err) {
      $('status').textContent = 'The report data could not be read: ' + err;
      return;
    }
    const t1 = performance.now();
    prepare(data);
    const t2 = performance.now();
    const title = D.prim(D.get(root, 'title'));
    $('title').textContent = title;
    document.title = title;
    counts();
    legend();
    $('controls').hidden = false;
    $('legend').hidden = false;
    $('layout').hidden = false;
    $('findings').hidden = false;
    redraw();
    const t3 = performance.now();
    lists();
    const wrap = $('matrix-wrap');
    wrap.addEventListener('scroll', () => { if (virtual) drawBody(false); }, { passive: true });
    const body = $('matrix-body');
    body.addEventListener('click', onClick);
    body.addEventListener('keydown', onKey);
    for (const id of ['filter', 'filter-axis', 'only-unserved', 'only-idle', 'sort-rows', 'sort-cols']) {
      $(id).addEventListener(id === 'filter' ? 'input' : 'change', redraw);
    }
    const parsed = document.readyState === 'loading'
      ? new Promise((done) => document.addEventListener('DOMContentLoaded', done, { once: true }))
      : Promise.resolve();
    explainReady = parsed.then(() => readData('data-explain')).then((t) => {
      D.append(t.nodes);
      XD = D;
      XD.explainRoot = t.root;
      explanations = D.items(D.get(t.root, 'explanations'));
    });
    explainReady.catch((err) => { $('status').textContent = 'The explanations could not be read: ' + err; });
    try {
      await readFleet();
    } catch (err) {
      $('status').textContent = 'The clusters could not be read: ' + err;
      return;
    }
    window.omeReport = Object.freeze({ documents, cells: () => ({ M, R, virtual }), showCluster: (i) => showCluster(i) });
    const ms = Math.round(performance.now() - t0);
    $('status').textContent = `Ready (${ms} ms). Rows are models, columns runtimes; click a cell for evaluate explain on that pair.`;
    document.body.dataset.ready = 'yes';
    document.body.dataset.readyMs = String(ms);
    const nav = performance.getEntriesByType('navigation')[0] || {};
    document.body.dataset.timings = JSON.stringify({
      response: Math.round(nav.responseEnd || 0), domInteractive: Math.round(nav.domInteractive || 0),
      start: Math.round(t0), decode: Math.round(t1 - t0), prepare: Math.round(t2 - t1),
      matrix: Math.round(t3 - t2), lists: Math.round(performance.now() - t3),
    });
    // Milliseconds from the start of navigation until the page answers input.
    document.body.dataset.interactiveMs = String(Math.round(performance.now()));
  }

  main();
})();
