/**
 * DNS-rebinding guard (PRODUCT §11), the app's first stage: the sandbox answers only requests
 * addressed to one of its own names. A web page that rebinds its own name to 127.0.0.1 still
 * sends that name as Host, so it is refused (403) before anything reads a tenant or a token.
 *
 * The set of names is computed once, at start: localhost, 127.0.0.1, [::1], the bound host (or,
 * bound to a wildcard, every interface address and the host name), the `--public-url` host and
 * the `--allowed-host` names. The port is not checked. A request reaches the check as a URL:
 * over a socket @hono/node-server builds it from the Host header (from the bound address when
 * an HTTP/1.0 request sends none); in-process, `app.request('/path')` is `http://localhost/path`.
 */
import type { AddressInfo } from 'node:net'
import { hostname, networkInterfaces } from 'node:os'
import type { MiddlewareHandler } from 'hono'
import { SandboxError } from '../../domain/errors.js'
import type { AppEnv } from '../../wiring/env.js'

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]']
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]'])

export function isWildcard(host: string): boolean {
  return WILDCARDS.has(host)
}

/** `http://host:port` of a listening server, as a client on this machine reaches it. */
export function listeningOrigin(address: AddressInfo): string {
  const shown = isWildcard(address.address)
    ? '127.0.0.1'
    : address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address
  return `http://${shown}:${address.port}`
}

/** An address only this machine reaches: localhost, 127.0.0.0/8, ::1. */
export function isLoopback(host: string): boolean {
  const name = host.trim().toLowerCase()
  return (
    name === 'localhost' || name === '::1' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name)
  )
}

export type HostNames = { host: string; allowedHosts?: readonly string[]; publicUrl?: string }

/** Every Host name the sandbox answers to, lowercased, without port, IPv6 in brackets. */
export function allowedHostnames({ host, allowedHosts = [], publicUrl }: HostNames): Set<string> {
  const names = new Set(LOOPBACK_NAMES)
  if (isWildcard(host)) {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const { address, family } of addresses ?? [])
        names.add(family === 'IPv6' ? `[${address}]` : address)
    }
    names.add(hostname().toLowerCase())
  } else {
    names.add(hostName(host))
  }
  if (publicUrl) names.add(new URL(publicUrl).hostname)
  for (const name of allowedHosts) names.add(hostName(name))
  return names
}

const HOST_NAME = /^(?:[a-z0-9._-]+|\[[0-9a-f:.]+\])$/

/**
 * A name as a Host header carries it: `Example.test:4010` → `example.test`, `::1` → `[::1]`,
 * `[::1]:80` → `[::1]`. Throws on anything else (a scheme, a path, a wildcard).
 */
export function hostName(value: string): string {
  const name = value.trim().toLowerCase()
  const bareIpv6 = !name.startsWith('[') && name.indexOf(':') !== name.lastIndexOf(':')
  const host = bareIpv6
    ? `[${name}]`
    : name.startsWith('[')
      ? name.slice(0, name.indexOf(']') + 1)
      : name.replace(/:\d*$/, '')
  if (!HOST_NAME.test(host)) throw new Error(`not a host name or address: "${value}"`)
  return host
}

/** The hostname of an absolute URL, lowercased, without port: no URL parse on the hot path. */
export function hostnameOfUrl(url: string): string {
  const start = url.indexOf('//') + 2
  const end = url.indexOf('/', start)
  const authority = end === -1 ? url.slice(start) : url.slice(start, end)
  const cut = authority.startsWith('[') ? authority.indexOf(']') + 1 : authority.indexOf(':')
  return (cut <= 0 ? authority : authority.slice(0, cut)).toLowerCase()
}

export function hostCheck(allowed: ReadonlySet<string>): MiddlewareHandler<AppEnv> {
  return function hostCheck(c, next) {
    const name = hostnameOfUrl(c.req.url)
    if (allowed.has(name)) return next()
    throw new SandboxError(
      'forbidden',
      `Host "${name}" is not a name of this sandbox (DNS-rebinding protection). ` +
        `If you reach it by that name, start it with --allowed-host ${name} ` +
        '(or CARD_SANDBOX_ALLOWED_HOST).',
    )
  }
}
