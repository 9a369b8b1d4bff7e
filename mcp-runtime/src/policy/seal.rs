//! Sealing: authenticated encryption (XChaCha20-Poly1305) of small server-side state handed
//! to clients, such as list cursors.
//!
//! A sealed token is bound to a purpose string (its associated data), so a token minted for
//! one purpose cannot be replayed for another. Any server process holding the same key can
//! open it, which is what lets any instance behind a load balancer continue a listing.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use sha2::{Digest, Sha256};

/// `bytes` random bytes from the operating system, URL-safe base64 (no padding): for
/// session ids and other unguessable names. Only visible ASCII, as HTTP headers need.
pub fn random_token(bytes: usize) -> Result<String, String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| format!("no randomness available: {e}"))?;
    Ok(URL_SAFE_NO_PAD.encode(buf))
}

/// Environment variable holding the seal key (64 hex digits or base64 of 32 bytes).
pub const SEAL_KEY_ENV: &str = "MCP_SEAL_KEY";

/// Tokens sealed before keys had an id: still opened, never made.
const VERSION_1: &str = "v1.";

/// Tokens that name their key: `v2.` and URL-safe base64 of the key id, the nonce and the
/// ciphertext.
const VERSION: &str = "v2.";

/// The bytes of a key id: enough to tell the keys of one deployment apart, far too few
/// to say anything of the key.
const KEY_ID: usize = 4;

/// A 256-bit sealing key.
#[derive(Clone)]
pub struct SealKey {
    bytes: [u8; 32],
    /// Made at random by this process: what it seals opens nowhere else, and not after a
    /// restart.
    random: bool,
}

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealKey(..)")
    }
}

impl SealKey {
    /// A key from raw bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        SealKey {
            bytes,
            random: false,
        }
    }

    /// A fresh random key (tokens then open only in this process).
    pub fn random() -> Result<Self, String> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| format!("no randomness for the seal key: {e}"))?;
        Ok(SealKey {
            bytes: key,
            random: true,
        })
    }

    /// Parse 64 hex digits or base64 (standard or URL-safe) of exactly 32 bytes.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let bytes = if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            (0..32)
                .map(|i| {
                    let pair = text.get(2 * i..2 * i + 2).unwrap_or_default();
                    u8::from_str_radix(pair, 16).map_err(|e| e.to_string())
                })
                .collect::<Result<Vec<u8>, String>>()?
        } else {
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .or_else(|_| URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')))
                .map_err(|_| "a seal key must be 64 hex digits or base64 of 32 bytes".to_owned())?
        };
        let key: [u8; 32] = bytes
            .try_into()
            .map_err(|_| "a seal key must be exactly 32 bytes (64 hex digits)".to_owned())?;
        Ok(SealKey::from_bytes(key))
    }

    /// The key's id: the first bytes of a digest of it, written into every token it seals
    /// so that a token sealed with another key is told apart from an altered one.
    fn id(&self) -> [u8; KEY_ID] {
        let digest = Sha256::new()
            .chain_update(b"mcp-runtime seal key id\0")
            .chain_update(self.bytes)
            .finalize();
        let mut id = [0u8; KEY_ID];
        for (slot, byte) in id.iter_mut().zip(digest.iter()) {
            *slot = *byte;
        }
        id
    }
}

/// Seals and opens tokens with one key.
#[derive(Clone)]
pub struct Sealer {
    cipher: XChaCha20Poly1305,
    id: [u8; KEY_ID],
    random: bool,
}

/// Why a token did not open. Which check failed is not said, but for one: a token that
/// names another key than the sealer's, which is an operator's matter (the instances do
/// not share a key, or it changed), not a caller's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unsealed {
    /// Sealed with another key: the token names a key id that is not the sealer's.
    OtherKey,
    /// Not a token, altered, sealed for another purpose, or too long.
    Refused,
}

impl Sealer {
    /// A sealer using `key`.
    pub fn new(key: &SealKey) -> Self {
        Sealer {
            cipher: XChaCha20Poly1305::new(&key.bytes.into()),
            id: key.id(),
            random: key.random,
        }
    }

    /// For people: why a token sealed with another key does not open here, and what to
    /// set so that it would.
    pub(crate) fn other_key(&self) -> &'static str {
        if self.random {
            "it was sealed with another key: this server makes a new seal key each time it \
             starts, as MCP_SEAL_KEY is not set, so what it seals does not outlive the \
             process; set MCP_SEAL_KEY, the same on every instance"
        } else {
            "it was sealed with another key than this server's: give every instance the \
             same MCP_SEAL_KEY (or Server::seal_key)"
        }
    }

    /// Seal `plaintext` for `purpose`.
    pub fn seal(&self, purpose: &str, plaintext: &[u8]) -> Result<String, String> {
        self.seal_with(purpose.as_bytes(), plaintext)
    }

    /// Open a token sealed for `purpose`.
    pub fn open(&self, purpose: &str, token: &str) -> Result<Vec<u8>, Unsealed> {
        self.open_with(purpose.as_bytes(), token, 8192)
    }

    /// Seal `plaintext`, binding it to `bound` (authenticated, not stored in the token).
    pub fn seal_with(&self, bound: &[u8], plaintext: &[u8]) -> Result<String, String> {
        let mut nonce = [0u8; 24];
        getrandom::fill(&mut nonce).map_err(|e| format!("no randomness for a nonce: {e}"))?;
        let nonce = XNonce::from(nonce);
        let sealed = self
            .cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: plaintext,
                    aad: bound,
                },
            )
            .map_err(|_| "sealing failed".to_owned())?;
        let mut out = Vec::with_capacity(KEY_ID + 24 + sealed.len());
        out.extend_from_slice(&self.id);
        out.extend_from_slice(nonce.as_slice());
        out.extend_from_slice(&sealed);
        Ok(format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(out)))
    }

    /// Open a token sealed with the same `bound` bytes; tokens longer than `max_len`
    /// characters are refused before any decoding.
    pub fn open_with(
        &self,
        bound: &[u8],
        token: &str,
        max_len: usize,
    ) -> Result<Vec<u8>, Unsealed> {
        let (body, named) = match (token.strip_prefix(VERSION), token.strip_prefix(VERSION_1)) {
            (Some(body), _) => (body, true),
            (None, Some(body)) => (body, false),
            (None, None) => return Err(Unsealed::Refused),
        };
        if body.len() > max_len {
            return Err(Unsealed::Refused);
        }
        let raw = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| Unsealed::Refused)?;
        let raw = if named {
            let (id, rest) = raw.split_at_checked(KEY_ID).ok_or(Unsealed::Refused)?;
            if id != self.id {
                return Err(Unsealed::OtherKey);
            }
            rest
        } else {
            raw.as_slice()
        };
        if raw.len() < 24 + 16 {
            return Err(Unsealed::Refused);
        }
        let (nonce, sealed) = raw.split_at(24);
        let nonce = XNonce::try_from(nonce).map_err(|_| Unsealed::Refused)?;
        self.cipher
            .decrypt(
                &nonce,
                Payload {
                    msg: sealed,
                    aad: bound,
                },
            )
            .map_err(|_| Unsealed::Refused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_tokens_open_only_for_their_purpose_and_key() {
        let key = SealKey::random().unwrap();
        let sealer = Sealer::new(&key);
        let token = sealer.seal("cursor:tools/list", b"3").unwrap();
        assert!(token.starts_with("v2."));
        assert_eq!(sealer.open("cursor:tools/list", &token).unwrap(), b"3");
        assert_eq!(
            sealer.open("cursor:prompts/list", &token),
            Err(Unsealed::Refused)
        );
        // Another key is told apart from an altered token: its id is not this key's.
        let other = Sealer::new(&SealKey::random().unwrap());
        assert_eq!(
            other.open("cursor:tools/list", &token),
            Err(Unsealed::OtherKey)
        );
        // S-125: flip one character of the ciphertext: it no longer opens.
        let mut bytes = token.into_bytes();
        let last = bytes.len() - 2;
        bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bytes).unwrap();
        assert_eq!(
            sealer.open("cursor:tools/list", &tampered),
            Err(Unsealed::Refused)
        );
        for junk in ["", "v1.", "v2.", "v2.AAAA", "v1.!!!", "x", "v3.AAAA"] {
            assert_eq!(
                sealer.open("cursor:tools/list", junk),
                Err(Unsealed::Refused),
                "{junk}"
            );
        }
    }

    #[test]
    fn tokens_sealed_before_keys_had_ids_still_open() {
        // What a sealer wrote as `v1.`: the nonce and the ciphertext, no key id (records
        // sealed into a store before the key id, such as connected accounts, stay
        // readable).
        let key = SealKey::from_bytes([9; 32]);
        let sealer = Sealer::new(&key);
        let token = sealer.seal("vault", b"refresh").unwrap();
        let raw = URL_SAFE_NO_PAD
            .decode(token.strip_prefix(VERSION).unwrap())
            .unwrap();
        let v1 = format!("{VERSION_1}{}", URL_SAFE_NO_PAD.encode(&raw[KEY_ID..]));
        assert_eq!(sealer.open("vault", &v1).unwrap(), b"refresh");
        let other = Sealer::new(&SealKey::from_bytes([8; 32]));
        assert_eq!(other.open("vault", &v1), Err(Unsealed::Refused));
    }

    #[test]
    fn the_reason_for_another_key_says_what_to_set() {
        let random = Sealer::new(&SealKey::random().unwrap());
        assert!(random.other_key().contains("MCP_SEAL_KEY is not set"));
        let given = Sealer::new(&SealKey::from_bytes([1; 32]));
        assert!(given.other_key().contains("same MCP_SEAL_KEY"));
        // A key's id is the same in every process that holds the key.
        assert_eq!(
            SealKey::from_bytes([1; 32]).id(),
            SealKey::from_bytes([1; 32]).id()
        );
        assert_ne!(
            SealKey::from_bytes([1; 32]).id(),
            SealKey::from_bytes([2; 32]).id()
        );
    }

    #[test]
    fn keys_parse_from_hex_and_base64() {
        let hex = "00".repeat(32);
        assert!(SealKey::parse(&hex).is_ok());
        assert!(
            SealKey::parse(&base64::engine::general_purpose::STANDARD.encode([7u8; 32])).is_ok()
        );
        assert!(SealKey::parse("short").is_err());
        assert!(SealKey::parse(&"00".repeat(31)).is_err());
    }
}
