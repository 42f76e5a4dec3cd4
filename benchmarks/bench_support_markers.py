"""Ways of painting the live preview's support vectors (issue 29), timed in headless Chromium.

Mid-drag, the support vectors' canvas (kernelviz/components/plot/markers.js, drawSupport) is
cleared and repainted at every dragged value: 1,000–1,400 outlined markers over the four panels of
the default view (moons, n = 500), rings and boxes 10–24 px wide. This takes the support vectors the
preview really draws at the 24 γ values of bench_live.py's drag (tests/apps/live_demo.py) and
paints each value's on a canvas of the support canvas's size, in several ways, each paint
followed by a one-pixel ``getImageData`` that makes Chromium raster what was recorded (the work
the compositor would otherwise do after the script): per value, the median milliseconds.

  per-marker        one beginPath / arc / stroke per marker, its style set each time (the branch's
                    first version: points.js paintMarker)
  batched           one path per (layer, symbol): moveTo + arc (circles) or moveTo + lineTo (squares)
                    per marker, one stroke per path
  sprites           each marker a drawImage of a pre-rendered canvas of its symbol and size (sizes
                    in quarter-pixel steps), at its exact position (resampled)
  sprites-px        the same, each copied to a whole device pixel
  sprites-half      each copied to a whole device pixel from a sprite painted at the half-pixel
                    offset nearest to its centre
  sprites-nosmooth  at its exact position, imageSmoothingEnabled off (nearest pixel)
  atlas-px          whole pixels, every sprite on one canvas, copied by a source rectangle
  bitmap-half       sprites-half from ImageBitmaps (OffscreenCanvas.transferToImageBitmap)
  half-pxclip       sprites-half, the plot area's clip rounded to whole device pixels
  half-noclip       sprites-half, no clip
  sprites.js        kernelviz/components/plot/sprites.js's paintSprites: each sprite's pixels read
                    back once; at each value every marker's pixels blended (source over) into one
                    picture in script, put with one putImageData

Each line gives the median over values and passes, and of it the script's own calls (the
rest is raster). The methods alternate, twice.

Usage: ``.venv/bin/python benchmarks/bench_support_markers.py [--passes N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "apps"))

from kernelviz.components import module_text  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
MOVES = list(range(13, 25)) + list(range(23, 13, -1)) + [15, 16]

# The support layers the preview draws at each value (root._kvSupport), in pixels of the figure.
COLLECT = """async ([axis, indices]) => {
  const root = document.querySelector('.kv-plot');
  const input = document.querySelector(`.kv-live-control[data-axis="${axis}"] input`);
  const frames = [];
  for (const index of indices) {
    input.value = String(index);
    input.dispatchEvent(new Event('input', {bubbles: true}));
    const live = document.querySelector('.kv-live');
    while (live.dataset.field !== `${axis}:${index}` || !root._kvSupport) {
      await new Promise((r) => requestAnimationFrame(r));
    }
    const layers = [];
    const full = root._fullLayout;
    for (const [subplot, layer] of root._kvSupport) {
      const [x, y] = subplot.split('/');
      const xa = full[`xaxis${x.slice(1)}`], ya = full[`yaxis${y.slice(1)}`];
      layers.push({clip: [xa._offset, ya._offset, xa._length, ya._length],
                   px: Array.from(layer.x, (v) => xa._offset + xa.l2p(v)),
                   py: Array.from(layer.y, (v) => ya._offset + ya.l2p(v)),
                   size: Array.from(layer.size), symbol: layer.symbol, color: layer.color,
                   opacity: layer.opacity, lineWidth: layer.lineWidth});
    }
    frames.push(layers);
  }
  const canvas = root.querySelector('.kv-plot-support');
  return {frames, width: canvas.width, height: canvas.height, left: parseFloat(canvas.style.left),
          top: parseFloat(canvas.style.top), ratio: window.devicePixelRatio || 1};
}"""

TIME = """([data, method, passes]) => {
  const {frames, width, height, left, top, ratio} = data;
  const canvas = document.createElement('canvas');
  canvas.width = width; canvas.height = height;
  document.body.appendChild(canvas);
  const context = canvas.getContext('2d');
  const one = (v, i, d) => (Array.isArray(v) ? v[i] : v ?? d);
  const sprites = new Map();
  // phase: the marker's centre this far (device px) right of and below a whole pixel of the sprite
  const drawSprite = (g, symbol, bucket, color, lineWidth, pad, phase) => {
    const r = bucket / 2, c = pad + phase / ratio;
    g.beginPath();
    if (symbol.startsWith('square')) g.rect(c - r, c - r, 2 * r, 2 * r); else g.arc(c, c, r, 0, 2 * Math.PI);
    g.lineWidth = lineWidth; g.strokeStyle = color; g.stroke();
  };
  const atlas = document.createElement('canvas'); atlas.width = atlas.height = 2048;
  const atlasContext = atlas.getContext('2d');
  let slots = 0;
  const SLOT = 34 * ratio;
  const sprite = (symbol, size, color, lineWidth, phaseX = 0, phaseY = 0) => {
    const bucket = Math.round(size * 4) / 4;
    const key = `${symbol}|${bucket}|${color}|${lineWidth}|${phaseX}|${phaseY}`;
    let s = sprites.get(key);
    if (!s) {
      const pad = Math.ceil(bucket / 2 + lineWidth) + 1, side = Math.ceil(2 * pad * ratio);
      if (method === 'atlas-px') {
        const sx = (slots % 60) * SLOT, sy = Math.floor(slots / 60) * SLOT; slots += 1;
        atlasContext.save(); atlasContext.setTransform(ratio, 0, 0, ratio, sx, sy);
        drawSprite(atlasContext, symbol, bucket, color, lineWidth, pad, 0); atlasContext.restore();
        s = {sx, sy, side, pad};
      } else {
        const bitmap = method === 'bitmap-half';
        const c = bitmap ? new OffscreenCanvas(side, side) : document.createElement('canvas');
        c.width = c.height = side;
        const g = c.getContext('2d'); g.setTransform(ratio, 0, 0, ratio, 0, 0);
        // a phase in x and y: drawn with the phase on both axes, then only one is used (enough for timing)
        drawSprite(g, symbol, bucket, color, lineWidth, pad, phaseX);
        s = {canvas: bitmap ? c.transferToImageBitmap() : c, pad, side};
      }
      sprites.set(key, s);
    }
    return s;
  };
  // 'sprites.js': the component's own paintSprites (its module text, as Streamlit receives it),
  // on the layers in the figure's pixels (axes that map a pixel to itself)
  const shipped = method === 'sprites.js' ? new Function(`${data.module}\nreturn paintSprites;`)() : null;
  canvas.place = {left, top, ratio};
  const soft = (layers) => {
    shipped(canvas, context, layers.map((layer) => {
      const [cx, cy, cw, ch] = layer.clip;
      return [{...layer, x: layer.px, y: layer.py}, {offset: cx, length: cw, toPixel: (v) => v},
              {offset: cy, length: ch, toPixel: (v) => v}];
    }));
    const recorded = performance.now();
    context.getImageData(0, 0, 1, 1);
    return recorded;
  };
  const paint = (layers) => {
    if (method === 'sprites.js') return soft(layers);
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.clearRect(0, 0, width, height);
    context.setTransform(ratio, 0, 0, ratio, -left * ratio, -top * ratio);
    for (const layer of layers) {
      const [cx, cy, cw, ch] = layer.clip;
      context.save();
      if (method === 'half-pxclip') {  // the clip to whole device pixels: no antialiased edge
        const x0 = Math.round((cx - left) * ratio), y0 = Math.round((cy - top) * ratio);
        const x1 = Math.round((cx + cw - left) * ratio), y1 = Math.round((cy + ch - top) * ratio);
        context.setTransform(1, 0, 0, 1, 0, 0);
        context.beginPath(); context.rect(x0, y0, x1 - x0, y1 - y0); context.clip();
        context.setTransform(ratio, 0, 0, ratio, -left * ratio, -top * ratio);
      } else if (method !== 'half-noclip') { context.beginPath(); context.rect(cx, cy, cw, ch); context.clip(); }
      const n = layer.px.length;
      if (method === 'per-marker') {
        for (let i = 0; i < n; i += 1) {
          const r = layer.size[i] / 2, x = layer.px[i], y = layer.py[i];
          context.globalAlpha = one(layer.opacity, i, 1);
          context.beginPath();
          if (layer.symbol[i].startsWith('square')) {
            context.moveTo(x + r, y + r); context.lineTo(x - r, y + r); context.lineTo(x - r, y - r);
            context.lineTo(x + r, y - r); context.closePath();
          } else context.arc(x, y, r, 0, 2 * Math.PI);
          context.lineWidth = Math.max(one(layer.lineWidth, i, 0), 1);
          context.strokeStyle = one(layer.color, i, '#444');
          context.stroke();
          context.globalAlpha = 1;
        }
      } else if (method === 'batched') {
        context.globalAlpha = one(layer.opacity, 0, 1);
        context.lineWidth = Math.max(one(layer.lineWidth, 0, 0), 1);
        context.strokeStyle = one(layer.color, 0, '#444');
        for (const square of [false, true]) {
          context.beginPath();
          for (let i = 0; i < n; i += 1) {
            if (layer.symbol[i].startsWith('square') !== square) continue;
            const r = layer.size[i] / 2, x = layer.px[i], y = layer.py[i];
            if (square) {
              context.moveTo(x + r, y + r); context.lineTo(x - r, y + r); context.lineTo(x - r, y - r);
              context.lineTo(x + r, y - r); context.closePath();
            } else { context.moveTo(x + r, y); context.arc(x, y, r, 0, 2 * Math.PI); }
          }
          context.stroke();
        }
        context.globalAlpha = 1;
      } else {
        const snap = method !== 'sprites';
        const half = ['sprites-half', 'bitmap-half', 'half-pxclip', 'half-noclip'].includes(method);
        if (method === 'sprites-nosmooth') context.imageSmoothingEnabled = false;
        context.globalAlpha = one(layer.opacity, 0, 1);
        for (let i = 0; i < n; i += 1) {
          const color = one(layer.color, i, '#444'), width = Math.max(one(layer.lineWidth, i, 0), 1);
          let x = layer.px[i] * ratio, y = layer.py[i] * ratio, phaseX = 0, phaseY = 0;
          if (half) {
            const hx = Math.round(x * 2) / 2, hy = Math.round(y * 2) / 2;
            x = Math.floor(hx); y = Math.floor(hy); phaseX = hx - x; phaseY = hy - y;
          } else if (snap) { x = Math.round(x); y = Math.round(y); }
          const s = sprite(layer.symbol[i], layer.size[i], color, width, phaseX, phaseY);
          const dx = x / ratio - s.pad, dy = y / ratio - s.pad;
          if (method === 'atlas-px') context.drawImage(atlas, s.sx, s.sy, s.side, s.side, dx, dy, s.side / ratio, s.side / ratio);
          else context.drawImage(s.canvas, dx, dy, s.side / ratio, s.side / ratio);
        }
        context.imageSmoothingEnabled = true;
        context.globalAlpha = 1;
      }
      context.restore();
    }
    const recorded = performance.now();
    context.getImageData(0, 0, 1, 1);  // raster what was recorded
    return recorded;
  };
  paint(frames[0]);  // warm: sprites made, code compiled
  const times = frames.map(() => []), scripts = frames.map(() => []);
  for (let p = 0; p < passes; p += 1) {
    frames.forEach((layers, k) => {
      const start = performance.now();
      const recorded = paint(layers);
      times[k].push(performance.now() - start);
      scripts[k].push(recorded - start);
    });
  }
  canvas.remove();
  const median = (a) => { const s = [...a].sort((u, v) => u - v); return s[Math.floor(s.length / 2)]; };
  return [times.map(median), scripts.map(median)];
}"""

METHODS = ["per-marker", "batched", "sprites", "sprites-px", "sprites-half", "sprites-nosmooth", "atlas-px",
           "bitmap-half", "half-pxclip", "half-noclip", "sprites.js"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=7, help="paints of each value per method (default 7)")
    args = parser.parse_args()
    import live_drag
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p, live_drag.serve() as url:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.set_default_timeout(300_000)
        page.goto(url)
        page.locator(live_drag.READY).wait_for()
        page.wait_for_selector(live_drag.IDLE)
        data = page.evaluate(COLLECT, ["log_gamma", MOVES])
        data["module"] = module_text(ROOT / "kernelviz" / "components" / "plot" / "sprites.js")
        counts = [sum(len(layer["px"]) for layer in frame) for frame in data["frames"]]
        print(f"{len(counts)} γ values, {min(counts)}–{max(counts)} support vectors each (median "
              f"{statistics.median(counts):.0f}); canvas {data['width']}×{data['height']} px at ratio {data['ratio']}")
        results = {method: [] for method in METHODS}
        scripts = {method: [] for method in METHODS}
        for _ in range(2):  # the methods alternate: a neighbour's load falls on each alike
            for method in METHODS:
                total, script = page.evaluate(TIME, [data, method, args.passes])
                results[method] += total
                scripts[method] += script
        for method in METHODS:
            ms = results[method]
            print(f"  {method:<16} median {statistics.median(ms):5.2f} ms per value "
                  f"(p10 {sorted(ms)[len(ms) // 10]:.2f}, p90 {sorted(ms)[9 * len(ms) // 10]:.2f}), of which the "
                  f"script's calls {statistics.median(scripts[method]):5.2f} ms")
        browser.close()
    print(f"load average now: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
