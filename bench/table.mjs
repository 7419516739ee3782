// The table bench/run.mjs prints: each row, its value in this run and the previous one, its target.
import { round } from './harness.mjs'

/**
 * Each row of the table: what is measured, its value from a run's figures (the previous run's
 * too; a row it lacks shows —), the target and whether it is met.
 */
export const ratio = (a, b) => round(a / b, 2)
/** The rounds' least and greatest ratio, GET / POST, where a run has them (sideBySide). */
export const spread = (f, which) => {
  if (!f.spreads) return ''
  const [get, post] = [f.spreads.get_cards[which], f.spreads.create_card[which]]
  return ` (rounds ${get.min}–${get.max} / ${post.min}–${post.max})`
}
const spreadOne = (f, request, which) => {
  const one = f.spreads?.[request][which]
  return one ? `, rounds ${one.min}–${one.max}` : ''
}
/** Beside a create's ratio: bare Hono's running the create's SQL alone, where a run has it. */
const sqlFloor = (floor) =>
  floor === undefined ? '' : `; bare Hono with the create's SQL alone: ${floor}×`
export const TABLE = [
  {
    what: (c) => `cold start, median of ${c.starts}`,
    value: (f) =>
      f.cold_start_hono_ms === undefined
        ? `${f.cold_start_ms} ms`
        : `${f.cold_start_ms} ms (bare Hono ${f.cold_start_hono_ms}, node:http ${f.cold_start_node_http_ms})`,
    target: '≤ 250 ms',
    met: (f) => f.cold_start_ms <= 250,
  },
  {
    what: () => 'GET /v1/cards, 50 connections',
    value: (f) =>
      `${f.sandbox_get_cards.rps} rps, ${f.get_cards_to_hono ?? ratio(f.sandbox_get_cards.rps, f.hono_get_cards.rps)}× Hono (${f.hono_get_cards.rps}; node:http ${f.node_http_get_cards.rps}${spreadOne(f, 'get_cards', 'to_hono')})`,
    target: '≥ 0.6× Hono',
    met: (f) => f.get_cards_to_hono >= 0.6,
  },
  {
    what: () => 'GET /v1/cards p50 / p99',
    value: (f) =>
      `${f.sandbox_get_cards.p50} / ${f.sandbox_get_cards.p99} ms (Hono ${f.hono_get_cards.p50} / ${f.hono_get_cards.p99})`,
    target: 'p99 ≤ 10 ms',
    met: (f) => f.sandbox_get_cards.p99 <= 10,
  },
  {
    what: () => 'POST /v1/cards/create, 50 connections',
    value: (f) =>
      `${f.sandbox_create_card.rps} rps, ${f.create_card_to_hono ?? ratio(f.sandbox_create_card.rps, f.hono_create_card.rps)}× Hono (${f.hono_create_card.rps}; node:http ${f.node_http_create_card.rps}${spreadOne(f, 'create_card', 'to_hono')})${sqlFloor(f.create_card_sql_floor_to_hono)}`,
    target: '≥ 0.4× Hono',
    met: (f) => f.create_card_to_hono >= 0.4,
  },
  {
    what: () => 'POST /v1/cards/create p50 / p99',
    value: (f) =>
      `${f.sandbox_create_card.p50} / ${f.sandbox_create_card.p99} ms (Hono ${f.hono_create_card.p50} / ${f.hono_create_card.p99})`,
    target: 'p99 ≤ 10 ms',
    met: (f) => f.sandbox_create_card.p99 <= 10,
  },
  {
    what: () => 'GET /v1/cards, one connection, mean latency',
    value: (f) =>
      `${f.sandbox_get_cards_1.mean} ms, ${f.get_cards_1_mean_to_hono}× Hono's (${f.hono_get_cards_1.mean}${spreadOne(f, 'get_cards', 'one_connection_mean_to_hono')})`,
    target: '≤ 1.5× Hono',
    met: (f) => f.get_cards_1_mean_to_hono <= 1.5,
  },
  {
    what: () => 'POST /v1/cards/create, one connection, mean latency',
    value: (f) =>
      `${f.sandbox_create_card_1.mean} ms, ${f.create_card_1_mean_to_hono}× Hono's (${f.hono_create_card_1.mean}${spreadOne(f, 'create_card', 'one_connection_mean_to_hono')})${sqlFloor(f.create_card_1_sql_floor_mean_to_hono)}`,
    target: '≤ 2× Hono',
    met: (f) => f.create_card_1_mean_to_hono <= 2,
  },
  {
    what: () => 'default real clock ÷ --clock manual, rps GET / POST',
    value: (f) =>
      `${f.get_cards_real_to_manual}× / ${f.create_card_real_to_manual}×${spread(f, 'real_to_manual')}`,
    target: '≥ 0.95×',
    met: (f) => f.get_cards_real_to_manual >= 0.95 && f.create_card_real_to_manual >= 0.95,
  },
  {
    what: () => '--journal off ÷ on, rps GET / POST',
    value: (f) =>
      `${f.get_cards_journal_off_to_on}× / ${f.create_card_journal_off_to_on}×${spread(f, 'journal_off_to_on')}`,
    target: '≤ 1.10×',
    met: (f) => f.get_cards_journal_off_to_on <= 1.1 && f.create_card_journal_off_to_on <= 1.1,
  },
  {
    what: () => 'reset, p50 / p99',
    value: (f) => `${f.reset.p50} / ${f.reset.p99} ms (${f.reset.rows} rows)`,
    target: 'p99 ≤ 5 ms',
    met: (f) => f.reset.p99 <= 5,
  },
  {
    what: () => 'snapshot restore, p50 / p99, and p50 ÷ reset p50',
    value: (f) =>
      f.restore
        ? `${f.restore.p50} / ${f.restore.p99} ms (${f.restore.rows} rows), ${f.restore.p50_to_reset}× reset`
        : 'not measured',
    target: 'p99 ≤ 10 ms',
    met: (f) => f.restore !== undefined && f.restore.p99 <= 10,
  },
  {
    what: (c) => `list p50 at ${c.listRows[0]} / ${c.listRows[1]} rows`,
    value: (f) => Object.values(f.list).join(' / ') + ' ms',
    target: '≤ 1.5× growth',
    met: (f) => {
      const [small, large] = Object.values(f.list)
      return large <= 1.5 * Math.max(small, 1)
    },
  },
  {
    what: () => 'clock advance running due transitions',
    value: (f) => `${f.due_transitions.ms} ms (${f.due_transitions.count})`,
    target: '≤ 1 s',
    met: (f) => f.due_transitions.ms <= 1000,
  },
  {
    what: () => 'clock advance issuing as many cards, each with its webhook event',
    value: (f) => `${f.due_issuances.ms} ms (${f.due_issuances.count})`,
    target: '≤ 1 s',
    met: (f) => f.due_issuances.ms <= 1000,
  },
  {
    what: () => 'run until idle over the same jobs at 100 instants, and ÷ reset p50',
    value: (f) =>
      f.run_due
        ? `${f.run_due.ms} ms (${f.run_due.count}), ${f.run_due.to_reset}× reset`
        : 'not measured',
    target: '≤ 1 s',
    met: (f) => f.run_due !== undefined && f.run_due.ms <= 1000,
  },
  {
    what: () => 'webhooks delivered',
    value: (f) => `${f.webhooks.ms} ms, ${f.webhooks.lost} lost (${f.webhooks.count})`,
    target: '≤ 2 s, none lost',
    met: (f) => f.webhooks.ms <= 2000 && f.webhooks.lost === 0,
  },
  {
    what: () => 'RSS idle / peak under load',
    value: (f) => `${f.rss_idle_mb} / ${f.rss_peak_mb} MB`,
    target: '≤ 100 / 200 MB',
    met: (f) => f.rss_idle_mb <= 100 && f.rss_peak_mb <= 200,
  },
]
