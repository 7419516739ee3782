<?php

declare(strict_types=1);

namespace WalletBackend;

/** Where the card API is and who the backend is to it. */
final class Config
{
    /**
     * @param string $apiUrl    the API's base URL, `/v1` included: `http://127.0.0.1:4010/v1` against the sandbox
     * @param string $apiKey    the business's API key: the bearer token, and what signs the webhooks
     * @param string $storeFile where the backend keeps what it knows (a JSON file)
     */
    public function __construct(
        public readonly string $apiUrl,
        public readonly string $apiKey,
        public readonly string $storeFile,
    ) {
    }

    /** From `ALAL_BASE_URL`, `ALAL_API_KEY` and `WALLET_STORE`. */
    public static function fromEnvironment(): self
    {
        $values = [];
        foreach (['ALAL_BASE_URL', 'ALAL_API_KEY', 'WALLET_STORE'] as $name) {
            $value = getenv($name);
            if ($value === false || $value === '') {
                throw new \RuntimeException("set {$name} (ALAL_BASE_URL: the API's /v1 base; ALAL_API_KEY; WALLET_STORE: a file)");
            }
            $values[] = $value;
        }
        return new self(rtrim($values[0], '/'), $values[1], $values[2]);
    }
}
