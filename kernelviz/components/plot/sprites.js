// Many markers at every frame, cheaply: each marker a copy of a pre-painted picture of it (a
// sprite), for the live preview's support vectors, repainted at every dragged value (markers.js,
// drawSupport). Stroked one by one, the default view's 1,000–1,400 rings and boxes cost Chromium
// ~10 ms of raster a frame and broke the γ drag's 30 repaints/s. Copying a sprite to a whole device
// pixel is a plain copy of its pixels. benchmarks/bench_support_markers.py, headless Chromium, the
// default view's support vectors at the γ drag's 24 values, median ms per value: per-marker strokes
// 12.2, one stroked path per symbol 14.7 (Skia strokes the overlapping rings as one outline),
// sprites at their exact places 7.8 (each copy resampled), at whole pixels 4.1, at half pixels 4.3.
//
// A sprite is painted by points.js's paintMarker, as every canvas marker of the app, so the
// support vectors look as the figure's do. Two things are rounded so that markers share sprites,
// each by less than a screen shows:
//  - the size, to a quarter of a pixel: a marker's edge is at most 1/16 px from where Plotly draws
//    it (sizes run continuously from 10 to 24 px with |α|: a sprite per size would be one per
//    marker);
//  - the centre, to half a device pixel: a sprite is painted at each half-pixel offset it is
//    needed at (SPRITE_PHASES across and down) and copied to a whole pixel, so a marker stands at
//    most 1/4 device px from its place, a sixth of its 1.5 px outline, which antialiasing spreads
//    over a pixel anyway. Whole pixels alone (up to 1/2 px off: a ring visibly off-centre round its
//    point) saved little more (4.1 against 4.3 ms).

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

// A sprite painted: the marker (its style, `steps` size steps wide) round a centre phaseX, phaseY
// phases right of and below its pixel `origin`; {canvas, origin}. At full opacity: the marker's
// opacity is the copy's.
function paintSprite(marker, ratio, steps, phaseX, phaseY) {
  if (spriteCount >= SPRITE_MOST) {
    SPRITE_STYLES.clear();
    spriteCount = 0;
  }
  spriteCount += 1;
  const size = steps * SPRITE_SIZE_STEP;
  const width = Number((marker.line || {}).width ?? 0);
  // room for the symbol (across or down: a circle or a square reaches its radius, a star 1.4 ×
  // it), its outline (a whole width: a corner's mitre reaches past half of it) and the phase's
  // pixel; no more: a larger sprite is more pixels to copy
  const origin = Math.ceil((spriteReach(marker.symbol) * size / 2 + width) * ratio) + 1;
  const canvas = document.createElement("canvas");
  canvas.width = 2 * origin + 1;
  canvas.height = 2 * origin + 1;
  const context = canvas.getContext("2d");
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  const at = (phase) => (origin + phase / SPRITE_PHASES) / ratio;
  paintMarker(context, { ...marker, size, opacity: 1 }, at(phaseX), at(phaseY), 1);
  return { canvas, origin };
}

// How far a symbol reaches across or down from its centre, in radii.
function spriteReach(symbol) {
  const polygon = SYMBOLS[String(symbol ?? "circle").replace(/-open$/, "")];
  return polygon ? Math.max(...polygon.map(([u, v]) => Math.max(Math.abs(u), Math.abs(v)))) : 1;
}

// The sprite of a marker ({symbol, size, color, line}) at `ratio` device pixels per CSS pixel, its
// centre `phaseX`, `phaseY` device px (0 or 1/2) right of and below its pixel `origin`: {canvas, origin}.
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

// A layer's markers ({x, y, symbol, size, color, opacity, lineWidth, lineColor}, each one value or
// one per point) painted on their subplot's axes (xa, ya: {offset, length, toPixel}) from sprites.
// `canvas`: where the context's canvas stands ({left, top}, CSS px) and its device pixels per CSS
// pixel (ratio). What lies outside the plot area is clipped, as Plotly clips it. At every frame:
// nothing is made per marker but its sprite, the first time it is needed.
export function paintSprites(context, layer, xa, ya, canvas) {
  const { left, top, ratio } = canvas;
  const n = Math.min(layer.x.length, layer.y.length);
  const perPoint = [layer.color, layer.lineWidth, layer.lineColor].some(isArray);
  const styles = new Map();  // this layer's styles: by symbol (by the whole style when it varies per point)
  context.save();
  context.beginPath();
  context.rect(xa.offset, ya.offset, xa.length, ya.length);
  context.clip();
  context.setTransform(1, 0, 0, 1, 0, 0);  // the clip stays; copies are placed in device pixels
  let alpha = 1;
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
    if (opacity !== alpha) context.globalAlpha = alpha = opacity;
    context.drawImage(sprite.canvas, px - sprite.origin, py - sprite.origin);
  }
  context.restore();
}
