<?php

declare(strict_types=1);

namespace WalletBackend;

/**
 * What the backend knows, in one JSON file: card users, cards and transfers by reference. The
 * webhook endpoint and the API calls run in different PHP processes, so every change holds the
 * file's lock while it reads and writes.
 */
final class Store
{
    public function __construct(private readonly string $file)
    {
    }

    /**
     * @param 'users'|'cards'|'transfers' $kind
     *
     * @return array<string, mixed>|null
     */
    public function find(string $kind, string $reference): ?array
    {
        return $this->locked(LOCK_SH, static fn (array $state): ?array => null)[$kind][$reference] ?? null;
    }

    /**
     * Merges `$fields` into the record (made when there is none).
     *
     * @param 'users'|'cards'|'transfers' $kind
     * @param array<string, mixed>        $fields
     */
    public function put(string $kind, string $reference, array $fields): void
    {
        $this->locked(LOCK_EX, static function (array $state) use ($kind, $reference, $fields): array {
            $state[$kind][$reference] = array_merge($state[$kind][$reference] ?? ['reference' => $reference], $fields);
            return $state;
        });
    }

    /**
     * Reads the state under the lock (LOCK_SH to read, LOCK_EX to change) and, when `$edit`
     * returns a new state, writes it back before letting go.
     *
     * @param callable(array<string, array<string, array<string, mixed>>>): (array<string, array<string, array<string, mixed>>>|null) $edit
     *
     * @return array<string, array<string, array<string, mixed>>> the state after
     */
    private function locked(int $lock, callable $edit): array
    {
        $handle = fopen($this->file, 'c+');
        if ($handle === false) {
            throw new \RuntimeException("cannot open {$this->file}");
        }
        try {
            flock($handle, $lock);
            $text = (string) stream_get_contents($handle);
            $state = $text === '' ? [] : json_decode($text, true, 512, JSON_THROW_ON_ERROR);
            $changed = $edit($state);
            if ($changed === null) {
                return $state;
            }
            ftruncate($handle, 0);
            rewind($handle);
            fwrite($handle, json_encode($changed, JSON_THROW_ON_ERROR));
            return $changed;
        } finally {
            flock($handle, LOCK_UN);
            fclose($handle);
        }
    }
}
