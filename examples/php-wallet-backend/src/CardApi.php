<?php

declare(strict_types=1);

namespace WalletBackend;

/** The card-issuing API over curl: JSON in, JSON out, an ApiError for anything but a 2xx. */
final class CardApi
{
    public function __construct(private readonly Config $config)
    {
    }

    /**
     * @param array<string, mixed> $body
     *
     * @return array<string, mixed>
     */
    public function post(string $path, array $body): array
    {
        return $this->call('POST', $path, json_encode($body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES));
    }

    /** @return array<string, mixed> */
    public function get(string $path): array
    {
        return $this->call('GET', $path, null);
    }

    /** @return array<string, mixed> */
    private function call(string $method, string $path, ?string $body): array
    {
        $curl = curl_init($this->config->apiUrl . $path);
        $headers = ['Authorization: Bearer ' . $this->config->apiKey, 'Accept: application/json'];
        if ($body !== null) {
            $headers[] = 'Content-Type: application/json';
            curl_setopt($curl, CURLOPT_POSTFIELDS, $body);
        }
        curl_setopt_array($curl, [
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $headers,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_TIMEOUT => 30,
        ]);
        $text = curl_exec($curl);
        if (!is_string($text)) {
            throw new \RuntimeException("the card API did not answer: " . curl_error($curl));
        }
        $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        $answer = json_decode($text, true);
        if ($status < 200 || $status > 299 || !is_array($answer)) {
            throw new ApiError($status, $answer ?? $text);
        }
        return $answer;
    }
}
