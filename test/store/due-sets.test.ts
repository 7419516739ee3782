/**
 * A run of due jobs in sets (src/store/due-sets.ts) whose set turned out empty (every job of the
 * run found its move no longer legal): each set statement is then a no-op, not a failure.
 */
import { describe, expect, it } from 'vitest'
import { cards } from '../../src/db/schema.js'
import { cancelMovesOf, insertEvents, updateRowsBySeq } from '../../src/store/due-sets.js'
import { cardByReference, insertCard } from '../../src/store/cards.js'
import { closeStore, openStore } from '../../src/store/open.js'
import { CARD_COLUMNS } from './card-columns.js'

describe('a set of no rows', () => {
  it('updates, cancels and inserts nothing, and does not fail', async () => {
    const db = openStore(':memory:')
    const card = await insertCard(db, { ...CARD_COLUMNS, reference: 'card-1', identifier: null })
    await updateRowsBySeq(db, cards, [])
    await cancelMovesOf(db, 'ten_1', 'cards', [])
    await insertEvents(db, [])
    expect(await cardByReference(db, 'ten_1', 'card-1')).toEqual(card)
    await closeStore(db)
  })
})
