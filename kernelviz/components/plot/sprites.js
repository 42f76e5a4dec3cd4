// Many markers at every frame, cheaply: the live preview's support vectors, repainted at every
// dragged value (markers.js, drawSupport). Each marker is painted once by points.js's paintMarker,
// as every canvas marker of the app, on a small canvas of its own (a sprite), whose pixels are read
// back; at every frame the sprites' pixels are blended, in script, into one picture of the canvas,
// handed over in one putImageData.
//
// Why (benchmarks/bench_support_markers.py: headless Chromium, the default view's 167–1,395
// support vectors at the γ drag's 24 values, median ms a value, script and raster, one run): stroked
// one by one, 13.3 (Chromium rasters each antialiased ring: ~10 ms a frame took the γ drag from ~35
// to 13–17 repaints/s); one stroked path per symbol, 15.8 (Skia outlines the overlapping rings as
// one); a drawImage of a sprite per marker, at its exact place 9.3, at a whole device pixel 4.7–5.9
// (half of it the calls themselves, ~2.5 µs each, whatever the source: canvas, ImageBitmap, atlas);
// the sprites' pixels blended here, 1.6–1.9.
//
// Two things are rounded so that markers share sprites, each by less than a screen shows:
//  - the size, to a quarter of a pixel: a marker's edge is at most 1/16 px from where Plotly draws
//    it (sizes run continuously from 10 to 24 px with |α|: a sprite per size would be one per
//    marker);
//  - the centre, to half a device pixel: a sprite is painted at each half-pixel offset it is
//    needed at (SPRITE_PHASES across and down) and placed at a whole pixel, so a marker stands at
//    most 1/4 device px from its place, a sixth of its 1.5 px outline, which antialiasing spreads
//    over a pixel anyway (whole pixels alone, up to 1/2 px off, would show a ring off-centre round
//    its point).
// The plot area that clips them is rounded to whole device pixels.

import { paintMarker, SYMBOLS } from "../points.js";
import { isArray, pick } from "./arrays.js";

const SPRITE_SIZE_STEP = 0.25;  // px: sizes are rounded to this (see above)
const SPRITE_PHASES = 2;        // offsets per device pixel, across and down: centres to 1/2 px
const SPRITE_MOST = 4096;       // sprites kept; past this the cache starts again (a page of many styles)
// by style (symbol, colour, outline, device pixels per CSS pixel): by size and phase, a number
const SPRITE_STYLES = new Map();
let spriteCount = 0;

// The sprites of one style ({symbol, color, line: {width, color}}) at `ratio` device pixels per CSS
// pixel, by spriteCode.
function spriteStyle(marker, ratio) {
  const line = marker.line || {};
  const key = `${marker.symbol}|${marker.color}|${line.width}|${line.color}|${ratio}`;
  let sprites = SPRITE_STYLES.get(key);
  if (!sprites) {
    sprites = new Map();
    SPRITE_STYLES.set(key, sprites);
  }
  return sprites;
}

// A sprite's number in its style: its size in steps and its phases across and down.
const spriteCode = (steps, phaseX, phaseY) => (steps * SPRITE_PHASES + phaseX) * SPRITE_PHASES + phaseY;

// A sprite: the marker (its style, `steps` size steps wide) painted round a centre phaseX, phaseY
// phases right of and below the pixel `origin` of a small canvas, at full opacity (the marker's
// opacity is applied as it is blended), and its pixels read back: those it covers, as offsets from
// the centre pixel (dx, dy) and straight colours (rgb, 3 a pixel) and coverage (alpha, 0–1).
function paintSprite(marker, ratio, steps, phaseX, phaseY) {
  if (spriteCount >= SPRITE_MOST) {
    SPRITE_STYLES.clear();
    spriteCount = 0;
  }
  spriteCount += 1;
  const size = steps * SPRITE_SIZE_STEP;
  const width = Number((marker.line || {}).width ?? 0);
  // room for the symbol (across or down: a circle or a square reaches its radius, a star 1.4 ×
  // it), its outline (a whole width: a corner's mitre reaches past half of it) and the phase's pixel
  const origin = Math.ceil((spriteReach(marker.symbol) * size / 2 + width) * ratio) + 1;
  const side = 2 * origin + 1;
  const canvas = document.createElement("canvas");
  canvas.width = side;
  canvas.height = side;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  const at = (phase) => (origin + phase / SPRITE_PHASES) / ratio;
  paintMarker(context, { ...marker, size, opacity: 1 }, at(phaseX), at(phaseY), 1);
  const { data } = context.getImageData(0, 0, side, side);
  let n = 0;
  for (let k = 3; k < data.length; k += 4) if (data[k]) n += 1;
  const sprite = { dx: new Int16Array(n), dy: new Int16Array(n), rgb: new Uint8Array(3 * n), alpha: new Uint8Array(n),
                   reach: origin, colour: -1 };
  let j = 0;
  let uniform = true;
  for (let k = 0; k < side * side; k += 1) {
    if (!data[4 * k + 3]) continue;
    sprite.dx[j] = (k % side) - origin;
    sprite.dy[j] = Math.floor(k / side) - origin;
    sprite.rgb.set(data.subarray(4 * k, 4 * k + 3), 3 * j);
    sprite.alpha[j] = data[4 * k + 3];
    uniform &&= j === 0 || sprite.rgb.subarray(3 * j, 3 * j + 3).every((c, m) => c === sprite.rgb[m]);
    j += 1;
  }
  // one colour (an open marker's): blended as a pixel word (blend), its colour the bytes' order in memory
  if (uniform && n && LITTLE_ENDIAN) sprite.colour = sprite.rgb[0] | (sprite.rgb[1] << 8) | (sprite.rgb[2] << 16);
  return sprite;
}

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

// How far a symbol reaches across or down from its centre, in radii.
function spriteReach(symbol) {
  const polygon = SYMBOLS[String(symbol ?? "circle").replace(/-open$/, "")];
  return polygon ? Math.max(...polygon.map(([u, v]) => Math.max(Math.abs(u), Math.abs(v)))) : 1;
}

// The sprite of a marker ({symbol, size, color, line}) at `ratio` device pixels per CSS pixel, its
// centre `phaseX`, `phaseY` device px (0 or 1/2) right of and below its pixel.
export function markerSprite(marker, ratio, phaseX = 0, phaseY = 0) {
  const steps = Math.round(Number(marker.size ?? 6) / SPRITE_SIZE_STEP);
  const [fx, fy] = [Math.round(phaseX * SPRITE_PHASES), Math.round(phaseY * SPRITE_PHASES)];
  const sprites = spriteStyle(marker, ratio);
  const code = spriteCode(steps, fx, fy);
  let sprite = sprites.get(code);
  if (!sprite) {
    sprite = paintSprite(marker, ratio, steps, fx, fy);
    sprites.set(code, sprite);
  }
  return sprite;
}

// Paint the markers of `shown` ([[layer, xa, ya], …]: a layer's {x, y, symbol, size, color,
// opacity, lineWidth, lineColor}, each one value or one per point, on its subplot's axes {offset,
// length, toPixel}) on `canvas`, all of it: what was there goes. `canvas.place` says where the
// canvas stands in the figure ({left, top}, CSS px) and its device pixels per CSS pixel (ratio)
// (plotly_access.js, fitCanvas). Each layer is clipped to its plot area, as Plotly clips it.
// Nothing is made per marker but its sprite, the first time it is needed.
export function paintSprites(canvas, context, shown) {
  const { left, top, ratio } = canvas.place;
  const { width, height } = canvas;
  if (!canvas.kvPixels || canvas.kvPixels.width !== width || canvas.kvPixels.height !== height) {
    canvas.kvPixels = context.createImageData(width, height);
  }
  const image = canvas.kvPixels;
  const words = new Uint32Array(image.data.buffer, image.data.byteOffset, width * height);
  image.data.fill(0);
  for (const [layer, xa, ya] of shown) {
    // the plot area in the canvas's device pixels, [x0, x1) × [y0, y1)
    const x0 = Math.max(0, Math.round((xa.offset - left) * ratio));
    const y0 = Math.max(0, Math.round((ya.offset - top) * ratio));
    const x1 = Math.min(width, Math.round((xa.offset + xa.length - left) * ratio));
    const y1 = Math.min(height, Math.round((ya.offset + ya.length - top) * ratio));
    const n = Math.min(layer.x.length, layer.y.length);
    const perPoint = [layer.color, layer.lineWidth, layer.lineColor].some(isArray);
    const styles = new Map();  // this layer's styles: by symbol (by the whole style when it varies per point)
    for (let i = 0; i < n; i += 1) {
      const x = Number(layer.x[i]);
      const y = Number(layer.y[i]);
      if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
      // the half device pixel nearest to the centre: a whole pixel and a phase (0 or 1 half)
      const nearX = Math.round((xa.toPixel(x) - left) * ratio * SPRITE_PHASES);
      const nearY = Math.round((ya.toPixel(y) - top) * ratio * SPRITE_PHASES);
      const px = Math.floor(nearX / SPRITE_PHASES);
      const py = Math.floor(nearY / SPRITE_PHASES);
      const symbol = pick(layer.symbol, i, "circle");
      let style = styles.get(symbol);
      if (perPoint || !style) {
        const marker = { symbol, color: pick(layer.color, i, "#444"),
                         line: { width: pick(layer.lineWidth, i, 0), color: pick(layer.lineColor, i, "#444") } };
        style = { marker, sprites: spriteStyle(marker, ratio) };
        styles.set(symbol, style);
      }
      const steps = Math.round(Number(pick(layer.size, i, 6)) / SPRITE_SIZE_STEP);
      const fx = nearX - px * SPRITE_PHASES;
      const fy = nearY - py * SPRITE_PHASES;
      const code = spriteCode(steps, fx, fy);
      let sprite = style.sprites.get(code);
      if (!sprite) {
        sprite = paintSprite(style.marker, ratio, steps, fx, fy);
        style.sprites.set(code, sprite);
      }
      const opacity = Number(pick(layer.opacity, i, 1));
      const r = sprite.reach;
      if (sprite.colour >= 0 && px - r >= x0 && px + r < x1 && py - r >= y0 && py + r < y1) {
        blendInside(image.data, words, width, sprite, py * width + px, opacity);
      } else {
        blend(image.data, words, width, sprite, px, py, opacity, [x0, y0, x1, y1]);
      }
    }
  }
  context.putImageData(image, 0, 0);
}

// A sprite's pixels over the picture's (straight RGBA, `width` pixels a row; `words` the same
// memory a pixel a number), its centre at pixel (px, py), at `opacity`, source over, within
// `clip` ([x0, y0, x1, y1]).
function blend(out, words, width, sprite, px, py, opacity, clip) {
  const { dx, dy, alpha } = sprite;
  for (let k = 0; k < alpha.length; k += 1) {
    const x = px + dx[k];
    const y = py + dy[k];
    if (x >= clip[0] && x < clip[2] && y >= clip[1] && y < clip[3]) blendPixel(out, words, sprite, k, y * width + x, opacity);
  }
}

// The same for a sprite of one colour wholly within its clip, its centre at pixel `centre`: the
// loop of every frame's ~1,000 rings, kept to a word read and written a pixel.
function blendInside(out, words, width, sprite, centre, opacity) {
  if (sprite.offsetsWidth !== width) {  // each pixel's offset from the centre's, in a row of `width`
    sprite.offsets = Int32Array.from(sprite.dx, (dx, k) => sprite.dy[k] * width + dx);
    sprite.offsetsWidth = width;
  }
  const { offsets, alpha, colour } = sprite;
  for (let k = 0; k < offsets.length; k += 1) {
    const pixel = centre + offsets[k];
    const word = words[pixel];
    const below = word >>> 24;
    if (below === 0 || (word & 0xffffff) === colour) {
      const a = alpha[k] * opacity;
      words[pixel] = colour | ((a + below - (a * below) / 255 + 0.5) << 24);
    } else {
      blendPixel(out, words, sprite, k, pixel, opacity);
    }
  }
}

// Pixel k of a sprite over the picture's `pixel`, source over. Where the picture is empty or
// already of the sprite's one colour (rings over rings), only the coverage is blended, a word at a time.
function blendPixel(out, words, sprite, k, pixel, opacity) {
  const { rgb, alpha, colour } = sprite;
  const a = alpha[k] * opacity;  // 0–255
  if (colour >= 0) {
    const word = words[pixel];
    const below = word >>> 24;
    if (below === 0 || (word & 0xffffff) === colour) {
      words[pixel] = colour | ((a + below - (a * below) / 255 + 0.5) << 24);
      return;
    }
  }
  const at = 4 * pixel;
  const kept = out[at + 3] * (1 - a / 255);
  const total = a + kept;
  if (total === 0) return;
  out[at] = (rgb[3 * k] * a + out[at] * kept) / total;
  out[at + 1] = (rgb[3 * k + 1] * a + out[at + 1] * kept) / total;
  out[at + 2] = (rgb[3 * k + 2] * a + out[at + 2] * kept) / total;
  out[at + 3] = total;
}
