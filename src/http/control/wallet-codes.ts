/**
 * POST /__sandbox/wallet-codes {"phone","network"} → {code, expires_at} (PRODUCT §8): the code
 * the payer would get from orange-money, for a wallet-to-card pull from that phone.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { CODE_NETWORKS, issueWalletCode } from '../../domain/wallet-codes.js'
import type { AppEnv } from '../../wiring/env.js'
import { ok } from '../envelope.js'
import { describeRoute } from '../route-meta.js'
import { validate } from '../validate.js'
import { phone, withExample } from '../v1/schemas.js'

export const walletCodeBody = withExample(
  z.strictObject({
    phone: phone(),
    network: z.enum(CODE_NETWORKS),
  }),
  { phone: '+221770000001', network: 'orange-money-sn' },
)

export const walletCodesApi = new Hono<AppEnv>().post(
  '/',
  describeRoute({ auth: 'bearer', summary: 'Issue a wallet code' }),
  validate('json', walletCodeBody),
  async (c) => {
    const code = await issueWalletCode(c.get('ctx'), c.req.valid('json'))
    return ok(c, 'Wallet code issued', {
      data: {
        code: code.code,
        phone: code.phone,
        network: code.network,
        expires_at: new Date(code.expiresAt).toISOString(),
      },
    })
  },
)
