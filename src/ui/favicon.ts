/**
 * The sandbox's icon, drawn here so that nothing is fetched or shipped as a binary: a green card
 * with a white stripe, as an SVG (`/favicon.svg`, which every page links) and, for the browsers
 * and tools that ask `/favicon.ico` on their own, the same 16×16 drawing as an ICO.
 */
import { Hono } from 'hono'
import type { AppEnv } from '../wiring/env.js'
import { describeRoute } from '../http/route-meta.js'

export const FAVICON_PATH = '/favicon.svg'
export const FAVICON_ICO_PATH = '/favicon.ico'

const GREEN = '#0f6e5a'

export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">' +
  `<rect x="1" y="3" width="14" height="10" rx="1.5" fill="${GREEN}"/>` +
  '<rect x="1" y="5" width="14" height="2" fill="#fff"/>' +
  '<rect x="3" y="9" width="4" height="2" fill="#fff"/>' +
  '</svg>'

/** The SVG's 16×16 pixels: the card's rows 3–12 and columns 1–14, corners cut. */
function pixel(x: number, y: number): 'clear' | 'green' | 'white' {
  const inCard = x >= 1 && x <= 14 && y >= 3 && y <= 12
  const corner = (x === 1 || x === 14) && (y === 3 || y === 12)
  if (!inCard || corner) return 'clear'
  if (y === 5 || y === 6) return 'white'
  if (y >= 9 && y <= 10 && x >= 3 && x <= 6) return 'white'
  return 'green'
}

/** An ICO holding one 16×16 32-bit bitmap (rows bottom-up, BGRA, then an all-zero AND mask). */
function icoOf(): Uint8Array<ArrayBuffer> {
  const size = 16
  const pixels = size * size * 4
  const mask = size * 4 // each row of 16 bits padded to 32
  const image = 40 + pixels + mask
  const ico = Buffer.alloc(6 + 16 + image)
  ico.writeUInt16LE(1, 2) // type: icon
  ico.writeUInt16LE(1, 4) // one image
  ico.writeUInt8(size, 6)
  ico.writeUInt8(size, 7)
  ico.writeUInt16LE(1, 10) // planes
  ico.writeUInt16LE(32, 12) // bits per pixel
  ico.writeUInt32LE(image, 14)
  ico.writeUInt32LE(22, 18) // where the image starts
  ico.writeUInt32LE(40, 22) // BITMAPINFOHEADER
  ico.writeInt32LE(size, 26)
  ico.writeInt32LE(size * 2, 30) // the colours and the mask
  ico.writeUInt16LE(1, 34)
  ico.writeUInt16LE(32, 36)
  const colours = {
    clear: [0, 0, 0, 0],
    green: [0x5a, 0x6e, 0x0f, 255],
    white: [255, 255, 255, 255],
  }
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++)
      ico.set(colours[pixel(x, y)], 62 + ((size - 1 - y) * size + x) * 4)
  return new Uint8Array(ico.buffer.slice(ico.byteOffset, ico.byteOffset + ico.length))
}

const FAVICON_ICO = icoOf()

const cached = { 'Cache-Control': 'public, max-age=86400' }

export const faviconApi = new Hono<AppEnv>()
  .get(
    FAVICON_PATH,
    describeRoute({ auth: 'none', summary: 'The icon of the sandbox’s pages (SVG)' }),
    (c) => c.body(FAVICON_SVG, 200, { 'Content-Type': 'image/svg+xml', ...cached }),
  )
  .get(FAVICON_ICO_PATH, describeRoute({ auth: 'none', summary: 'The same icon as an ICO' }), (c) =>
    c.body(FAVICON_ICO, 200, { 'Content-Type': 'image/x-icon', ...cached }),
  )
