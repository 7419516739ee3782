/**
 * The sandbox's randomness (domain/ids.ts): one seeded faker, so that `--seed` repeats a run.
 */
import { faker as frFaker } from '@faker-js/faker/locale/fr'
import type { Faker } from '@faker-js/faker'
import { describe, expect, it } from 'vitest'
import { createIds } from '../../src/domain/ids.js'

/** A faker as createIds makes one, seeded the same. */
function fakerSeeded(seed: number): Faker {
  const faker: Faker = new (frFaker.constructor as typeof Faker)({ locale: frFaker.rawDefinitions })
  faker.seed(seed)
  return faker
}

describe('createIds', () => {
  it('draws the UUIDs faker.string.uuid() draws for the same seed, in step with the other draws', () => {
    const ids = createIds(42)
    const faker = fakerSeeded(42)
    const ours = [ids.uuid(), ids.digits(6), ids.uuid()]
    expect(ours).toEqual([
      faker.string.uuid(),
      faker.string.numeric({ length: 6, allowLeadingZeros: true }),
      faker.string.uuid(),
    ])
  })

  it('makes v4 UUIDs with every variant digit', () => {
    const ids = createIds(7)
    const variants = new Set<string>()
    for (let i = 0; i < 200; i++) {
      const uuid = ids.uuid()
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      variants.add(uuid[19])
    }
    expect([...variants].sort()).toEqual(['8', '9', 'a', 'b'])
  })

  it('makes internal ids of the prefix, an underscore and 16 lowercase letters or digits', () => {
    const ids = createIds(3)
    for (let i = 0; i < 20; i++) expect(ids.internal('evt')).toMatch(/^evt_[0-9a-z]{16}$/)
  })

  it('repeats a run for a seed and differs for another', () => {
    const run = (seed: number) => {
      const ids = createIds(seed)
      return [ids.uuid(), ids.internal('ten'), ids.uuid()]
    }
    expect(run(1)).toEqual(run(1))
    expect(run(1)).not.toEqual(run(2))
  })
})
