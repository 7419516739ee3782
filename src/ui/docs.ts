/**
 * The API reference page (`GET /__sandbox/docs`, PRODUCT §8): the OpenAPI document rendered on
 * the server as one self-contained HTML page, with no script and nothing fetched from elsewhere
 * (the sandbox runs offline). Operations are grouped by tag; `html` escapes every value.
 */
import { html, raw } from 'hono/html'
import type {
  JsonSchema,
  OpenApiDocument,
  Operation,
  Parameter,
  Reference,
  Response,
} from '../http/openapi.js'
import { FAVICON_LINK } from './layout.js'

type Page = ReturnType<typeof html>

type Entry = { method: string; path: string; operation: Operation }

export function docsPage(document: OpenApiDocument, openApiUrl: string): Page {
  const entries = entriesOf(document)
  const tags = document.tags.map((tag) => ({
    ...tag,
    entries: entries.filter((entry) => entry.operation.tags[0] === tag.name),
  }))
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${document.info.title} API reference</title>
        ${FAVICON_LINK}
        <style>
          ${raw(STYLE)}
        </style>
      </head>
      <body>
        <header>
          <h1>${document.info.title} <small>${document.info.version}</small></h1>
          <p>${document.info.description}</p>
          <p>
            Send <code>Authorization: Bearer &lt;token&gt;</code> on every operation not marked
            <span class="public">public</span>. Machine-readable:
            <a href="${openApiUrl}">openapi.json</a> (OpenAPI ${document.openapi}).
          </p>
          <nav>${tags.map((tag) => html`<a href="#tag-${tag.name}">${tag.name}</a> `)}</nav>
        </header>
        <main>
          ${tags.map(
            (tag) =>
              html`<section id="tag-${tag.name}">
                <h2>${tag.name}</h2>
                ${tag.description ? html`<p>${tag.description}</p>` : ''}
                ${tag.entries.map((entry) => operationView(document, entry))}
              </section>`,
          )}
        </main>
      </body>
    </html>`
}

function entriesOf(document: OpenApiDocument): Entry[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation })),
  )
}

function operationView(document: OpenApiDocument, { method, path, operation }: Entry) {
  const body = operation.requestBody && Object.entries(operation.requestBody.content)[0]
  return html`<article id="${operation.operationId}">
    <h3>
      <span class="method ${method}">${method.toUpperCase()}</span>
      <code class="path">${path}</code>
      ${isPublic(operation) ? html`<span class="public">public</span>` : ''}
      ${operation.deprecated ? html`<span class="deprecated">deprecated</span>` : ''}
    </h3>
    <p>${operation.summary}</p>
    ${operation.parameters ? parametersView(operation.parameters) : ''}
    ${
      body
        ? html`<h4>Request body <small>${body[0]}</small></h4>
            ${
              body[1].example === undefined
                ? ''
                : html`<pre class="example">${JSON.stringify(body[1].example, null, 2)}</pre>`
            }
            <details>
              <summary>Schema</summary>
              <pre>${JSON.stringify(body[1].schema, null, 2)}</pre>
            </details>`
        : ''
    }
    <h4>Responses</h4>
    <ul class="responses">
      ${Object.entries(operation.responses).map(
        ([status, response]) =>
          html`<li><b>${status}</b> ${resolved(document, response).description}</li>`,
      )}
    </ul>
  </article>`
}

function parametersView(parameters: Parameter[]) {
  return html`<h4>Parameters</h4>
    <table>
      <thead>
        <tr>
          <th>Name</th>
          <th>In</th>
          <th>Required</th>
          <th>Schema</th>
        </tr>
      </thead>
      <tbody>
        ${parameters.map(
          (parameter) =>
            html`<tr>
              <td><code>${parameter.name}</code></td>
              <td>${parameter.in}</td>
              <td>${parameter.required ? 'yes' : 'no'}</td>
              <td><code>${schemaSummary(parameter.schema)}</code></td>
            </tr>`,
        )}
      </tbody>
    </table>`
}

/** `string, format uuid`, `one of: a, b`; JSON for anything more involved. */
function schemaSummary(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return `one of: ${schema.enum.join(', ')}`
  if (typeof schema.type !== 'string') return JSON.stringify(schema)
  const facets = ['format', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength']
    .filter((facet) => schema[facet] !== undefined)
    .map((facet) => `${facet} ${String(schema[facet])}`)
  return [schema.type, ...facets].join(', ')
}

function isPublic(operation: Operation): boolean {
  return operation.security !== undefined && operation.security.length === 0
}

function resolved(document: OpenApiDocument, response: Response | Reference): Response {
  if (!('$ref' in response)) return response
  const name = response.$ref.replace('#/components/responses/', '')
  return document.components.responses[name] ?? { description: response.$ref }
}

const STYLE = `
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 70rem; padding: 1rem 2rem; color: #1d2330; }
  header { border-bottom: 1px solid #d8dce5; margin-bottom: 1rem; }
  h1 small { font-size: 0.6em; color: #667; }
  nav a { margin-right: 0.8rem; }
  h2 { border-bottom: 2px solid #1d2330; margin-top: 2.5rem; }
  article { border: 1px solid #d8dce5; border-radius: 6px; padding: 0.5rem 1rem; margin: 1rem 0; }
  h3 { margin: 0.4rem 0; font-size: 1.05rem; }
  h4 { margin: 0.8rem 0 0.3rem; }
  .method { display: inline-block; min-width: 4.2rem; text-align: center; border-radius: 4px; color: #fff; font-size: 0.85rem; padding: 0.1rem 0.4rem; background: #667; }
  .method.get { background: #1f6feb; }
  .method.post { background: #2da44e; }
  .method.put, .method.patch { background: #bf8700; }
  .method.delete { background: #cf222e; }
  .public, .deprecated { font-size: 0.75rem; border: 1px solid currentColor; border-radius: 4px; padding: 0 0.3rem; margin-left: 0.4rem; }
  .public { color: #2da44e; }
  .deprecated { color: #bf8700; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; border-bottom: 1px solid #e4e7ee; padding: 0.2rem 0.5rem; vertical-align: top; }
  td code { word-break: break-all; }
  pre.example { background: #eef6f3; border-left: 3px solid #0f6e5a; }
  details > summary { cursor: pointer; color: #445; }
  pre { background: #f5f7fa; padding: 0.6rem; overflow-x: auto; font-size: 0.85rem; max-height: 30rem; }
  .responses { margin: 0; padding-left: 1.2rem; }
`
