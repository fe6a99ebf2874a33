// exitbench's HTML page: reads the plot specs from <script id="eb-data">,
// draws them with Chart.js (no animation, fixed sizes, so a headless browser
// sees the final picture at load), and reports what it drew into #eb-check.
// Embedded at build time (report/assets.S.in) and inlined in every page.
(function () {
  'use strict';
  var errors = [];
  window.addEventListener('error', function (e) { errors.push(String(e.message)); });
  var data = JSON.parse(document.getElementById('eb-data').textContent);
  var colors = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
  var verdictColor = { 'faster': '#2ca02c', 'slower': '#d62728' };

  // Vertical markers (p50, p99) and horizontal interval bars (forest plots),
  // drawn after the datasets; Chart.js has no such element of its own.
  // Kept per canvas, outside Chart.js's option resolver, which would wrap them.
  var overlays = {};
  var overlay = {
    id: 'ebOverlay',
    afterDatasetsDraw: function (chart) {
      var o = overlays[chart.canvas.id] || {}, ctx = chart.ctx, area = chart.chartArea;
      var xs = chart.scales.x, ys = chart.scales.y;
      ctx.save();
      (o.markers || []).forEach(function (m, i) {
        var x = xs.getPixelForValue(m.at);
        ctx.strokeStyle = i ? '#d62728' : '#2ca02c'; ctx.lineWidth = 2; ctx.setLineDash([5, 3]);
        ctx.beginPath(); ctx.moveTo(x, area.top); ctx.lineTo(x, area.bottom); ctx.stroke();
        ctx.fillStyle = ctx.strokeStyle; ctx.fillText(m.label, x + 4, area.top + 12 + 12 * i);
      });
      ctx.setLineDash([]);
      (o.bars || []).forEach(function (b) {
        var y = ys.getPixelForValue(b.y);
        ctx.strokeStyle = b.color; ctx.lineWidth = 2;
        ctx.beginPath(); ctx.moveTo(xs.getPixelForValue(b.lo), y); ctx.lineTo(xs.getPixelForValue(b.hi), y);
        ctx.moveTo(xs.getPixelForValue(b.lo), y - 5); ctx.lineTo(xs.getPixelForValue(b.lo), y + 5);
        ctx.moveTo(xs.getPixelForValue(b.hi), y - 5); ctx.lineTo(xs.getPixelForValue(b.hi), y + 5);
        ctx.stroke();
      });
      (o.names || []).forEach(function (t) {
        ctx.fillStyle = '#d62728'; ctx.font = '11px sans-serif';
        ctx.fillText(t.text, xs.getPixelForValue(t.x) + 7, ys.getPixelForValue(t.y) + 4);
      });
      if (o.zero) {
        var x0 = xs.getPixelForValue(0);
        ctx.strokeStyle = '#555'; ctx.lineWidth = 1;
        ctx.beginPath(); ctx.moveTo(x0, area.top); ctx.lineTo(x0, area.bottom); ctx.stroke();
      }
      ctx.restore();
    }
  };
  Chart.register(overlay);

  function base(title, xTitle, yTitle) {
    return {
      animation: false, responsive: false, events: [],
      plugins: { title: { display: true, text: title }, legend: { display: true } },
      scales: { x: { title: { display: true, text: xTitle } }, y: { title: { display: true, text: yTitle } } }
    };
  }

  function flat(y, x0, x1, label, color, fill) {
    return { type: 'line', label: label, data: [{ x: x0, y: y }, { x: x1, y: y }], borderColor: color,
             borderWidth: 1.5, borderDash: fill === undefined ? [] : [4, 3], pointRadius: 0,
             fill: fill === undefined ? false : fill, backgroundColor: 'rgba(31,119,180,0.12)' };
  }

  // Every repeat of every session, the session medians, the headline and its interval.
  function repeats(p) {
    var sets = [], n = p.sessions.length, meds = [];
    p.sessions.forEach(function (s, k) {
      sets.push({ type: 'scatter', label: n > 1 ? 'session ' + (k + 1) : 'repeats',
                  data: s.map(function (y, r) { return { x: n > 1 ? k + 1 + (r - (s.length - 1) / 2) * 0.06 : r + 1, y: y }; }),
                  backgroundColor: colors[k % colors.length], pointRadius: 3 });
      if (n > 1) meds.push({ x: k + 1, y: p.session_medians[k] });
    });
    if (n > 1) sets.push({ type: 'scatter', label: 'session medians', data: meds, pointStyle: 'rectRot',
                           pointRadius: 7, backgroundColor: 'rgba(0,0,0,0)', borderColor: '#000', borderWidth: 1.5 });
    var x1 = n > 1 ? n + 0.5 : Math.max(1, p.sessions[0].length) + 0.5;
    sets.push(flat(p.lo, 0.5, x1, '95% interval', '#1f77b4', false));
    sets.push(flat(p.hi, 0.5, x1, '95% interval (upper)', '#1f77b4', '-1'));
    sets.push(flat(p.center, 0.5, x1, p.center_label, '#000'));
    var o = base(p.title, n > 1 ? 'session' : 'repeat', 'cycles per iteration');
    o.scales.x.type = 'linear'; o.scales.x.min = 0.5; o.scales.x.max = x1;
    var last = n > 1 ? n : p.sessions[0].length;
    o.scales.x.afterBuildTicks = function (axis) {
      axis.ticks = [];
      for (var i = 1; i <= last; i++) axis.ticks.push({ value: i });
    };
    o.plugins.legend.labels = { filter: function (l) { return l.text.indexOf('(upper)') < 0; } };
    return { type: 'scatter', data: { datasets: sets }, options: o };
  }

  function histogram(p) {
    var o = base(p.title, p.x_title, 'count');
    o.plugins.legend.display = false;
    overlays[p.id] = { markers: p.markers };
    return { type: 'bar', data: { labels: p.labels, datasets: [{ data: p.counts, backgroundColor: '#1f77b4' }] }, options: o };
  }

  // Change in % per test with its interval, coloured by verdict; 0 marked.
  function forest(p) {
    var pts = p.rows.map(function (r, i) { return { x: r.change, y: i }; });
    var o = base(p.title, 'change of B over A, % (ratio of geometric means - 1)', '');
    o.plugins.legend.display = false;
    overlays[p.id] = { zero: true, bars: p.rows.map(function (r, i) {
      return { y: i, lo: r.lo, hi: r.hi, color: verdictColor[r.verdict] || '#7f7f7f' }; }) };
    var lo = 0, hi = 0;
    p.rows.forEach(function (r) { lo = Math.min(lo, r.lo, r.change); hi = Math.max(hi, r.hi, r.change); });
    var pad = Math.max((hi - lo) * 0.1, 0.5);
    o.scales.x.type = 'linear'; o.scales.x.min = lo - pad; o.scales.x.max = hi + pad;
    o.scales.y = { type: 'linear', reverse: true, min: -0.5, max: p.rows.length - 0.5,
                   afterBuildTicks: function (axis) { axis.ticks = p.rows.map(function (r, i) { return { value: i }; }); },
                   ticks: { autoSkip: false, callback: function (v) { var r = p.rows[v]; return r ? cut(r.label) : ''; } } };
    return { type: 'scatter', data: { datasets: [{ data: pts, pointRadius: 6,
             backgroundColor: p.rows.map(function (r) { return verdictColor[r.verdict] || '#7f7f7f'; }) }] }, options: o };
  }

  // Long labels are cut on the axis (the table has them whole), so the plot keeps its width.
  function cut(s) { return s.length > 48 ? s.slice(0, 47) + '\u2026' : s; }

  // A column per test, a dot per host at its % from the group median; outliers red and named.
  function strip(p) {
    var normal = [], odd = [], names = [];
    p.tests.forEach(function (t, i) {
      t.hosts.forEach(function (h, k) {
        var pt = { x: i + (t.hosts.length > 1 ? (k / (t.hosts.length - 1) - 0.5) * 0.3 : 0), y: h.pct };
        (h.outlier ? odd : normal).push(pt);
        if (h.outlier) names.push({ x: pt.x, y: pt.y, text: cut(h.host) });
      });
    });
    var o = base(p.title, 'test', '% from the group median');
    overlays[p.id] = { names: names };
    o.scales.x = { type: 'linear', min: -0.5, max: p.tests.length - 0.5, title: { display: true, text: 'test' },
                   afterBuildTicks: function (axis) { axis.ticks = p.tests.map(function (t, i) { return { value: i }; }); },
                   ticks: { autoSkip: false, maxRotation: 90, callback: function (v) { var t = p.tests[v]; return t ? cut(t.test) : ''; } } };
    return { type: 'scatter', data: { datasets: [
      { label: 'host', data: normal, backgroundColor: '#1f77b4', pointRadius: 4 },
      { label: 'outlier host', data: odd, backgroundColor: '#d62728', pointRadius: 6 }] }, options: o };
  }

  function share(p) {
    var o = base(p.title, p.x_title, '');
    o.indexAxis = 'y'; o.plugins.legend.display = false;
    return { type: 'bar', data: { labels: p.labels, datasets: [{ data: p.values, backgroundColor: colors.slice(0, p.values.length) }] }, options: o };
  }

  // What kind of code a frame is, by how the profiler names it.
  function frameColor(name) {
    if (name.startsWith('[guest')) return '#6baed6';
    if (/ \[[\w-]+\]$/.test(name)) return '#f2c14e';      // a kernel module's: "svm_vcpu_run [kvm_amd]"
    if (name.indexOf('::') >= 0 || name === '[exitbench: no symbol]') return '#74c476';
    if (name.charAt(0) === '[') return '#bdbdbd';          // another file, or no symbol
    return '#fd8d3c';                                       // the kernel's own
  }

  // A differential frame's colour: red where the second side spends more
  // time in it, blue where less, by the change against the larger side.
  function diffColor(n) {
    var big = Math.max(n.a, n.b), t = big > 0 ? (n.b - n.a) / big : 0;
    var fade = Math.round(255 * (1 - Math.min(Math.abs(t), 1)));
    return t >= 0 ? 'rgb(255,' + fade + ',' + fade + ')' : 'rgb(' + fade + ',' + fade + ',255)';
  }

  // A flame graph drawn straight on the canvas: the root at the bottom, each
  // frame as wide as its share of the samples, its callers below it. Kind
  // "flame_diff" colours a frame by its change instead of its kind.
  function flame(p) {
    var c = document.getElementById(p.id), ctx = c.getContext('2d'), h = 16, drawn = 0;
    var scale = c.width / Math.max(p.root.value, 1);
    ctx.font = '11px sans-serif'; ctx.textBaseline = 'middle';
    function node(n, x, depth) {
      var w = n.value * scale, y = c.height - (depth + 1) * (h + 1);
      if (w < 1 || y < 0) return;
      ctx.fillStyle = p.kind === 'flame_diff' ? diffColor(n) : depth ? frameColor(n.name) : '#969696';
      ctx.fillRect(x, y, Math.max(w - 1, 1), h);
      if (p.kind === 'flame_diff') { ctx.strokeStyle = '#bdbdbd'; ctx.strokeRect(x, y, Math.max(w - 1, 1), h); }
      drawn++;
      if (w > 30) {
        var label = n.name, room = Math.floor((w - 6) / 6);
        if (label.length > room) label = label.slice(0, Math.max(room - 1, 1)) + '\u2026';
        ctx.fillStyle = '#000'; ctx.fillText(label, x + 3, y + h / 2);
      }
      var at = x;
      n.children.forEach(function (k) { node(k, at, depth + 1); at += k.value * scale; });
    }
    node(p.root, 0, 0);
    return drawn;
  }

  // A test's saved session medians, oldest first, a series per host: a shift
  // between kernels or microcode stands out.
  function trend(p) {
    var sets = p.series.map(function (s, k) {
      return { type: 'line', label: s.host, data: s.points, showLine: true, borderWidth: 1, pointRadius: 3,
               borderColor: colors[k % colors.length], backgroundColor: colors[k % colors.length] };
    });
    var o = base(p.title, 'saved session, oldest first', 'cycles per iteration (session median)');
    o.scales.x.type = 'linear';
    o.scales.x.ticks = { callback: function (v) { return p.labels[v] !== undefined ? cut(p.labels[v]) : ''; } };
    return { type: 'scatter', data: { datasets: sets }, options: o };
  }

  var kinds = { repeats: repeats, histogram: histogram, forest: forest, share: share, strip: strip, trend: trend };
  var withData = 0;
  data.plots.forEach(function (p) {
    try {
      if (p.kind === 'flame' || p.kind === 'flame_diff') {
        if (flame(p)) withData++;
        return;
      }
      var chart = new Chart(document.getElementById(p.id), kinds[p.kind](p)), drawn = 0;
      chart.data.datasets.forEach(function (d, i) { drawn += chart.getDatasetMeta(i).data.length; });
      if (drawn) withData++;
    } catch (e) {
      errors.push(p.id + ': ' + e);
    }
  });

  // What a browser drew: canvases, and those with any painted pixel.
  var canvases = document.querySelectorAll('canvas'), nonblank = 0;
  canvases.forEach(function (c) {
    var px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, n = 0;
    for (var i = 3; i < px.length; i += 4) if (px[i]) n++;
    if (n > 500) nonblank++;
  });
  // How the tables sit in the window: the widest one's width and the tallest
  // row (a hung test's folded reason keeps its row to one line).
  var widest = 0, tallest = 0;
  document.querySelectorAll('table').forEach(function (t) {
    if (t.closest('details:not([open])')) return;  // folded away: not on the screen
    widest = Math.max(widest, t.getBoundingClientRect().width);
    t.querySelectorAll('tr').forEach(function (r) {
      if (!r.querySelector('th')) tallest = Math.max(tallest, r.getBoundingClientRect().height);  // a row of figures
    });
  });
  document.getElementById('eb-check').textContent = JSON.stringify(
    { expected: data.plots.length, canvases: canvases.length, nonblank: nonblank, with_data: withData, errors: errors,
      widest: Math.ceil(widest), tallest_row: Math.ceil(tallest), window: window.innerWidth });
})();
