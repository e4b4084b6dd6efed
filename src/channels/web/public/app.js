// The playground page: a chat thread that sends questions to the bot and
// renders the channel-neutral Answer it gets back. Threads live in this
// browser's localStorage; the bot keeps each thread's memory server-side.
// Everything from the server is inserted as text, never as HTML.
(() => {
  const $ = (sel) => document.querySelector(sel);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const store = {
    load: () => JSON.parse(localStorage.getItem('datadesk.threads') || '[]'),
    save: (threads) => localStorage.setItem('datadesk.threads', JSON.stringify(threads)),
  };
  // 128 random bits: the server keeps a thread's memory under this id, so it must not be guessable
  const newId = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  // threads saved by an older page had guessable ids, which the server refuses: give them new ones
  let threads = store.load().map((t) => (/^[0-9a-f]{32}$/.test(t.id) ? t : { ...t, id: newId() }));
  // an answer the page was closed before getting
  const unanswered = { answer: { kind: 'error', message: 'The page was closed before this answer came; ask again.', retryable: true } };
  for (const t of threads) for (const m of t.messages) if (m.role === 'bot' && !m.payload) m.payload = unanswered;
  store.save(threads);
  let current = null;

  function newThread() {
    const t = { id: newId(), title: 'New thread', messages: [] };
    threads.unshift(t);
    store.save(threads);
    select(t.id);
  }

  /** The thread list, the open thread marked, and the open thread's title over its messages. */
  function listThreads() {
    const id = current.id;
    // each thread a button: reached with Tab, opened with Enter or Space, the open one marked for screen readers
    $('#threads').replaceChildren(...threads.map((t) => {
      const li = el('li', t.id === id ? 'active' : '');
      const b = el('button', '', t.title);
      b.type = 'button';
      b.title = t.title;
      if (t.id === id) b.setAttribute('aria-current', 'true');
      b.onclick = () => select(t.id, $('#thread-title'));
      li.append(b);
      return li;
    }));
    $('#thread-title').textContent = current.title;
  }

  /** Opens a thread; `focus`, when given, is where the keyboard goes (the button pressed is rebuilt, and would leave it on the page's body). */
  function select(id, focus) {
    if (busy && current && current.id !== id) return; // one question at a time: its answer lands in its own thread
    document.body.classList.remove('threads-open');
    current = threads.find((t) => t.id === id);
    listThreads();
    $('#threads-toggle').setAttribute('aria-expanded', 'false');
    const box = $('#messages');
    box.replaceChildren();
    for (const m of current.messages) box.append(m.role === 'user' ? userBubble(m.text) : botBubble(m.payload));
    box.scrollTop = box.scrollHeight;
    if (focus) focus.focus();
  }

  /** The one thing the live region says when an answer comes: its headline, not the whole thread again. */
  function announce(payload) {
    const a = payload.answer;
    $('#announce').textContent = a.kind === 'result' ? a.headline : a.kind === 'clarify' ? a.question : a.kind === 'refusal' ? a.reason : a.message;
  }

  /** Text with `code` spans (the guide's examples), as text nodes and <code> elements: never parsed as HTML. */
  function withCode(node, text) {
    text.split(/(`[^`\n]+`)/).forEach((part, i) => node.append(i % 2 ? el('code', '', part.slice(1, -1)) : document.createTextNode(part)));
    return node;
  }

  function userBubble(text) {
    const div = el('div', 'msg user');
    div.append(el('div', 'who', 'You'), el('div', '', text));
    return div;
  }

  const PAGE = 10;
  const count = (n) => n.toLocaleString('en-US');
  // text in the reader's order, with the digits in it read as numbers ("2" before "10", "Ward 9" before "Ward 10")
  const collator = new Intl.Collator('en-US', { numeric: true, sensitivity: 'base' });

  /**
   * A table of an answer: every row the page received (up to PAGE_ROWS in playground-routes.ts), 10 a page, sorted by
   * the column whose header button was pressed. A short table (24 hours, 12 months, 22 districts) is shown whole, as in
   * Slack and Teams (rowsShown in core/answer.ts). On a narrow screen the table scrolls sideways in its own box.
   */
  function table(t, exportUrl) {
    const all = t.rows.map((cells, i) => ({ cells, i }));
    // a column of numbers sorts as numbers; any text in it makes it a column of text
    const numeric = t.columns.map((_, c) => t.rows.some((r) => typeof r[c] === 'number') && t.rows.every((r) => r[c] === null || typeof r[c] === 'number'));
    const whole = t.rows.length === t.rowCount && t.rows.length <= 24;
    const perPage = whole ? Math.max(t.rows.length, 1) : PAGE;
    const pages = Math.max(1, Math.ceil(all.length / perPage));
    let order = all;
    let page = 0;
    let sorted = { column: -1, dir: 0 };

    const box = el('div', 'data-table');
    const hint = el('div', 'scroll-hint', 'Scroll sideways for more columns →');
    hint.hidden = true;
    const scroller = el('div', 'table-wrap');
    const tbl = el('table');
    const head = el('tr');
    const body = el('tbody');
    // one row has no order to choose: its headers are plain
    const sortable = t.rows.length > 1;
    const headers = t.columns.map((c, i) => {
      const th = el('th', `${numeric[i] ? 'num' : ''}${sortable ? ' sortable' : ''}`.trim(), sortable ? undefined : c);
      th.scope = 'col';
      head.append(th);
      if (!sortable) return { th, mark: el('span') };
      const b = el('button', 'sort', c);
      b.type = 'button';
      const mark = el('span', 'sort-mark', '↕');
      mark.setAttribute('aria-hidden', 'true');
      b.append(mark);
      b.onclick = () => sortBy(i);
      th.append(b);
      return { th, mark };
    });
    const thead = el('thead');
    thead.append(head);
    tbl.append(thead, body);
    scroller.append(tbl);
    box.append(hint, scroller);

    const status = el('span', 'rows-note');
    const pager = el('div', 'pager');
    const prev = el('button', 'page-prev', 'Previous');
    const next = el('button', 'page-next', 'Next');
    prev.type = next.type = 'button';
    prev.onclick = () => turn(-1, prev, next);
    next.onclick = () => turn(1, next, prev);
    if (pages > 1) {
      // the page's rows are said where the buttons are, when they change
      status.setAttribute('role', 'status');
      pager.append(prev, status, next);
      box.append(pager);
    } else {
      box.append(status);
    }
    if (t.rowCount > t.rows.length) {
      const more = `showing the first ${count(t.rows.length)} of ${count(t.rowCount)}`;
      box.append(el('div', 'rows-note more-rows', exportUrl ? `${more}; Download CSV for all` : more));
    }

    function cell(v, i) {
      // numbers right-aligned, so that their digits line up
      return el('td', numeric[i] ? 'num' : '', v === null ? '' : typeof v === 'number' ? count(v) : String(v));
    }
    function draw() {
      const first = page * perPage;
      const rows = order.slice(first, first + perPage);
      body.replaceChildren(
        ...rows.map((r) => {
          const tr = el('tr');
          tr.append(...r.cells.map(cell));
          return tr;
        }),
      );
      const n = all.length;
      status.textContent =
        pages > 1 ? `rows ${count(first + 1)}–${count(first + rows.length)} of ${count(n)}` : `${count(n)} row${n === 1 ? '' : 's'}`;
      prev.disabled = page === 0;
      next.disabled = page === pages - 1;
    }
    function turn(by, pressed, other) {
      page = Math.min(pages - 1, Math.max(0, page + by));
      draw();
      // the last page's Next is disabled: the keyboard stays on the pager, not on the page's body
      if (pressed.disabled && document.activeElement !== other) other.focus();
    }
    function sortBy(c) {
      // the first press sorts up, a second on the same column reverses
      const dir = sorted.column === c ? -sorted.dir : 1;
      sorted = { column: c, dir };
      order = [...all].sort((a, b) => {
        const x = a.cells[c];
        const y = b.cells[c];
        // empty cells last, whichever way; ties as the query gave them
        const empty = (x === null) - (y === null);
        if (empty || x === null) return empty || a.i - b.i;
        return dir * (numeric[c] ? x - y : collator.compare(String(x), String(y))) || a.i - b.i;
      });
      headers.forEach(({ th, mark }, i) => {
        if (i === c) th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
        else th.removeAttribute('aria-sort');
        mark.textContent = i === c ? (dir > 0 ? '▲' : '▼') : '↕';
      });
      page = 0;
      draw();
    }
    draw();
    // the hint and a Tab stop (to scroll it with the arrow keys) only where the table is wider than its box
    if (typeof ResizeObserver === 'function') {
      const resize = new ResizeObserver(() => {
        const wider = scroller.scrollWidth > scroller.clientWidth + 1;
        hint.hidden = !wider;
        if (wider) {
          scroller.tabIndex = 0;
          scroller.setAttribute('role', 'region');
          scroller.setAttribute('aria-label', 'Table, scrolls sideways');
        } else {
          scroller.removeAttribute('tabindex');
          scroller.removeAttribute('role');
          scroller.removeAttribute('aria-label');
        }
      });
      resize.observe(scroller);
      resize.observe(tbl);
    }
    return box;
  }

  /** 👍 / 👎 under an answer: kept by the server; a thumbs-up here makes the question a verified one */
  function feedbackRow(payload) {
    const row = el('div', 'feedback');
    const note = el('span', 'feedback-note', payload.feedbackNote || '');
    // the words stay readable where no emoji font is installed
    for (const [verdict, label, title] of [['up', '👍 Right', 'A good answer: remember this question and its query'], ['down', '👎 Wrong', 'A wrong or unhelpful answer']]) {
      const b = el('button', payload.feedback === verdict ? 'chosen-verdict' : '', label);
      b.type = 'button';
      b.title = title;
      b.setAttribute('aria-label', title);
      b.onclick = async () => {
        const thread = current;
        try {
          const res = await fetch('/api/feedback', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ thread: thread.id, answer: payload.answerId, verdict }) });
          const body = await res.json();
          payload.feedback = res.ok ? verdict : payload.feedback;
          payload.feedbackNote = res.ok ? body.message : body.error;
        } catch (error) {
          payload.feedbackNote = `Could not reach the bot (${error.message}).`;
        }
        store.save(threads);
        // changed where it is: the rest of the thread (a table's page and order, the keyboard's place) stays as it was
        for (const other of row.querySelectorAll('button')) other.className = other.dataset.verdict === payload.feedback ? 'chosen-verdict' : '';
        note.textContent = payload.feedbackNote || '';
      };
      b.dataset.verdict = verdict;
      row.append(b);
    }
    // said when it changes (the verdict kept, or why not)
    note.setAttribute('role', 'status');
    row.append(note);
    return row;
  }

  function botBubble(payload, div = el('div', 'msg bot')) {
    div.append(el('div', 'who', 'Data Desk'));
    if (!payload) return div;
    const { answer, chartUrl, exportUrl, exportLimit } = payload;
    if (answer.kind === 'result') {
      if (answer.verified) div.append(el('div', 'verified', `✓ ${answer.verified}`));
      div.append(el('div', 'headline', answer.headline));
      // the headline is often the narration's first sentence: do not say it twice
      const rest = answer.narration.startsWith(answer.headline) ? answer.narration.slice(answer.headline.length).replace(/^[\s.,;:]+/, '').trim() : answer.narration;
      if (rest) div.append(withCode(el('div', 'narration'), rest));
      if (answer.understood && answer.understood.length) {
        const chips = el('div', 'understood');
        chips.append(el('span', 'understood-label', 'Understood as'));
        for (const part of answer.understood) chips.append(el('span', 'chip', part));
        div.append(chips);
      }
      if (answer.table) div.append(table(answer.table, exportUrl));
      if (exportUrl) {
        // all rows of the query, not only those shown: streamed by the server
        const a = el('a', 'export', `Download CSV (${answer.table.rowCount === 1 ? 'the 1 row' : `all ${answer.table.rowCount.toLocaleString('en-US')} rows`}${exportLimit && answer.table.rowCount > exportLimit ? `, the first ${exportLimit.toLocaleString('en-US')}` : ''})`);
        a.href = exportUrl;
        a.setAttribute('download', '');
        div.append(a);
      }
      for (const extra of answer.extraTables || []) {
        div.append(el('div', 'rows-note', extra.title));
        div.append(table(extra.table));
      }
      if (chartUrl) {
        const img = el('img', 'chart');
        // charts are drawn when first fetched: one scrolled out of sight in a long thread is not fetched, so not drawn
        img.loading = 'lazy';
        img.src = chartUrl;
        // on a narrow screen the chart drawn for it: the wide one shrunk would make its labels unreadable
        let chart = img;
        if (payload.phoneChartUrl) {
          chart = el('picture');
          const phone = el('source');
          phone.media = '(max-width: 600px)';
          phone.srcset = payload.phoneChartUrl;
          chart.append(phone, img);
        }
        // charts are kept a week: an older saved thread says so instead of a broken image
        img.onerror = () => chart.replaceWith(el('div', 'notes', 'This chart has expired (charts are kept for a week); ask the question again to draw it.'));
        img.alt = answer.chart ? answer.chart.title : 'chart';
        div.append(chart);
      }
      if (answer.sql.length) {
        const d = el('details');
        const text = (payload.sqlShown && payload.sqlShown.length ? payload.sqlShown : answer.sql).join(';\n\n');
        const copy = el('button', 'copy', 'Copy');
        copy.type = 'button';
        copy.onclick = () => navigator.clipboard.writeText(text).then(() => (copy.textContent = 'Copied'), () => (copy.textContent = 'Select and copy'));
        d.append(el('summary', '', 'SQL'), copy, el('pre', '', text));
        div.append(d);
      }
      if (answer.assumptions.length) div.append(el('div', 'assumptions', `Assumptions: ${answer.assumptions.join('; ')}`));
      for (const n of answer.notes) div.append(el('div', 'notes', n));
      if (answer.freshness) div.append(el('div', 'freshness', `Data: ${answer.freshness}`));
      if (answer.followUps && answer.followUps.length) {
        // one click asks the plan the button carries: the edit of this answer's plan, whatever was asked since
        const row = el('div', 'follow-ups');
        for (const f of answer.followUps) {
          const b = el('button', '', f.label);
          b.type = 'button';
          b.onclick = () => !busy && send('/api/ask', { thread: current.id, text: f.label, plan: f.plan }, f.label);
          row.append(b);
        }
        div.append(row);
      }
      if (payload.rerun) {
        // the plan asked again on today's data: a new answer below, with what changed since ("Re-run on … (was …)")
        const row = el('div', 'follow-ups rerun');
        const b = el('button', '', 'Re-run');
        b.type = 'button';
        b.title = 'Ask this again on today’s data and say what changed';
        b.onclick = () => !busy && send('/api/ask', { thread: current.id, text: 'Re-run on today’s data', rerun: payload.rerun }, 'Re-run on today’s data');
        row.append(b);
        div.append(row);
      }
      if (payload.answerId && answer.route !== 'help') div.append(feedbackRow(payload));
    } else if (answer.kind === 'clarify') {
      div.append(el('div', 'headline', answer.question));
      if (payload.chosen) {
        // answered: the choice, no buttons to press again
        div.append(el('div', 'chosen', `✓ ${payload.chosen}`));
        return div;
      }
      const opts = el('div', 'options');
      for (const o of answer.options) {
        const b = el('button', '', o.label);
        b.type = 'button';
        if (o.description) b.title = o.description;
        b.onclick = () => {
          if (busy) return;
          payload.chosen = o.label;
          store.save(threads);
          // answered: the choice, no buttons to press again
          opts.replaceWith(el('div', 'chosen', `✓ ${o.label}`));
          send('/api/choose', { thread: current.id, term: answer.term, option: o.id }, `${answer.termLabel || answer.term}: ${o.label}`);
        };
        opts.append(b);
      }
      div.append(opts);
    } else if (answer.kind === 'refusal') {
      div.append(el('div', 'headline', answer.reason));
      for (const a of answer.alternatives) div.append(el('div', 'notes', `• ${a}`));
    } else {
      div.append(el('div', 'error', answer.message));
    }
    return div;
  }

  let busy = null; // the AbortController of the question being answered, if any

  function setBusy(controller) {
    busy = controller;
    $('#send').hidden = Boolean(controller);
    $('#cancel').hidden = !controller;
    $('#question').disabled = Boolean(controller);
    if (!controller) $('#question').focus();
  }

  async function send(endpoint, body, shownText) {
    if (busy) return;
    const thread = current;
    const question = { role: 'user', text: shownText };
    const title = thread.title;
    thread.messages.push(question);
    // the answer's place is kept right under its question, whatever comes after
    const slot = { role: 'bot', payload: null };
    thread.messages.push(slot);
    if (thread.title === 'New thread') thread.title = shownText.length > 40 ? `${shownText.slice(0, 39)}…` : shownText;
    store.save(threads);
    listThreads();
    // the question and its answer's place are added to the thread; what is there already stays as it is
    const box = $('#messages');
    const asked = userBubble(shownText);
    const pending = botBubble(null);
    const progress = el('div', 'progress', 'Working…');
    pending.append(progress);
    box.append(asked, pending);
    box.scrollTop = box.scrollHeight;
    const controller = new AbortController();
    setBusy(controller);
    let payload = { answer: { kind: 'error', message: 'The bot did not answer. Is datadesk serve still running?', retryable: true } };
    try {
      const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: controller.signal });
      if (!res.ok) {
        // the server says why (too many questions, a missing token, ...) as {"error": "..."}
        const refusal = await res.json().catch(() => ({}));
        throw Object.assign(new Error(refusal.error || `The bot answered HTTP ${res.status}.`), {
          refused: true,
          retryable: res.status === 429,
          tooFast: res.status === 429 && Number(res.headers.get('retry-after')) > 0 ? Number(res.headers.get('retry-after')) : 0,
        });
      }
      if (!res.body) throw new Error('empty response');
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const chunk = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(chunk)?.[1];
          const data = JSON.parse(/^data: (.*)$/m.exec(chunk)?.[1] || 'null');
          if (event === 'progress') progress.textContent = `${data.step}…`;
          if (event === 'answer') payload = data;
        }
      }
    } catch (error) {
      if (error.tooFast) {
        // asking too fast is no answer: the question leaves the thread (and its stored copy), goes back in the box,
        // and a notice says how long to wait until it is gone
        thread.messages.splice(thread.messages.indexOf(question), 2);
        thread.title = title;
        store.save(threads);
        listThreads();
        asked.remove();
        pending.remove();
        if (endpoint === '/api/ask' && !body.plan && !body.rerun && !$('#question').value) $('#question').value = shownText;
        setBusy(null);
        const notice = el('p', 'hint wait-notice', error.message);
        notice.setAttribute('role', 'status');
        document.querySelector('.wait-notice')?.remove();
        $('#ask').before(notice);
        setTimeout(() => notice.remove(), error.tooFast * 1000);
        return;
      }
      payload = controller.signal.aborted
        ? { answer: { kind: 'error', message: 'Cancelled. Ask again when you like.', retryable: true } }
        : error.refused
          ? { answer: { kind: 'error', message: error.message, retryable: error.retryable } }
          : { answer: { kind: 'error', message: `Could not reach the bot (${error.message}).`, retryable: true } };
    }
    slot.payload = payload;
    store.save(threads);
    setBusy(null);
    if (current === thread) {
      // the answer fills its own place; the live region says its headline
      pending.replaceChildren();
      botBubble(payload, pending);
      announce(payload);
      // the question and the top of its answer in view (a long answer is read from its headline down)
      box.scrollTop += asked.getBoundingClientRect().top - box.getBoundingClientRect().top - 8;
    }
  }

  $('#ask').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('#question').value.trim();
    if (!text) return;
    $('#question').value = '';
    send('/api/ask', { thread: current.id, text }, text);
  });
  // what the answers come from: the data's range, and whether it is the generated demo set
  fetch('/status')
    .then((r) => (r.ok ? r.json() : null))
    .then((status) => {
      if (!status || !status.data) return;
      const { crimes, stocks } = status.data;
      const line = $('#data-line');
      const parts = [];
      if (crimes.rows) parts.push(`${crimes.rows.toLocaleString('en-US')} crimes, ${crimes.earliest} to ${(crimes.latest || '').slice(0, 10)}`);
      if (stocks.rows) parts.push(`daily bars to ${stocks.latest}`);
      line.textContent = parts.length ? `Data: ${parts.join('; ')}` : 'No data loaded yet.';
      if (crimes.synthetic || stocks.synthetic) {
        const badge = el('span', 'demo-badge', 'demo data (synthetic)');
        badge.title = 'Generated for trying the bot: the crimes and the share prices are made up (the company names are real). Load the real data with datadesk ingest.';
        line.append(' ', badge);
      }
    })
    .catch(() => undefined);
  $('#cancel').onclick = () => busy && busy.abort();
  // the first Tab stop: past the thread list and every answer, to where a question is typed (or to Cancel while one is answered)
  $('#skip').onclick = (e) => {
    e.preventDefault();
    ($('#question').disabled ? $('#cancel') : $('#question')).focus();
  };
  $('#new-thread').onclick = () => {
    if (busy) return;
    newThread();
    // the drawer closes on a phone, taking the button away: the keyboard goes where the new thread starts
    $('#question').focus();
  };
  $('#threads-toggle').onclick = () => {
    const open = document.body.classList.toggle('threads-open');
    $('#threads-toggle').setAttribute('aria-expanded', String(open));
  };
  if (threads.length) select(threads[0].id);
  else newThread();
})();
