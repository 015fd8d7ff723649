internal import CMbedTLS
import TLSTrust

/// A PKCS#12 (RFC 7292) reader for mbedTLS 2.28, which has the PKCS#12 key derivation and PBE
/// ciphers but no container parser.
///
/// Walks the PFX only as far as needed, with a small strict DER reader: the MAC is verified first
/// (HMAC keyed by `mbedtls_pkcs12_derivation`, ID 3, over the authSafe content), so that a wrong
/// password is told apart from a damaged file; then each authenticated-safe entry is read —
/// `data` in the clear, `encryptedData` decrypted — and its bags collected: certificate bags
/// (X.509 only), key bags and shrouded key bags. Decryption: the PKCS#12 PBE schemes with SHA-1
/// and 3DES (`mbedtls_pkcs12_pbe`), and PBES2 with PBKDF2 (`mbedtls_pkcs5_pbkdf2_hmac`, PRF
/// HMAC-SHA-1/224/256/384/512) and AES-128/192/256-CBC or 3DES-CBC (`mbedtls_cipher`): mbedTLS's own
/// `mbedtls_pkcs5_pbes2` accepts only HMAC-SHA-1 as PRF, and OpenSSL 3 writes HMAC-SHA-256.
/// Not supported: RC2 and RC4 PBE (OpenSSL's `-legacy` default for certificates), public-key
/// integrity mode, BER indefinite lengths, CRL and secret bags (ignored).
enum MbedTLSPKCS12 {
    struct Node {
        let tag: UInt8
        let content: ArraySlice<UInt8>
    }

    /// A strict DER reader over one buffer.
    struct Reader {
        var bytes: ArraySlice<UInt8>
        init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
        var isEmpty: Bool { bytes.isEmpty }

        mutating func read() throws -> Node {
            guard bytes.count >= 2 else { throw malformed("truncated DER") }
            var i = bytes.startIndex
            let tag = bytes[i]; i += 1
            guard tag & 0x1F != 0x1F else { throw malformed("high tag number") }
            var length = Int(bytes[i]); i += 1
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard count >= 1, count <= 4, bytes.endIndex - i >= count else { throw malformed("bad DER length") }
                length = 0
                for _ in 0..<count { length = length << 8 | Int(bytes[i]); i += 1 }
                guard length >= 0x80 else { throw malformed("non-minimal DER length") }
            }
            guard bytes.endIndex - i >= length else { throw malformed("DER length beyond the data") }
            let content = bytes[i..<(i + length)]
            bytes = bytes[(i + length)...]
            return Node(tag: tag, content: content)
        }

        mutating func read(_ tag: UInt8, _ what: String) throws -> ArraySlice<UInt8> {
            let node = try read()
            guard node.tag == tag else { throw malformed("expected \(what)") }
            return node.content
        }

        mutating func oid() throws -> String { MbedTLSPKCS12.oid(try read(0x06, "an OBJECT IDENTIFIER")) }

        mutating func integer() throws -> Int {
            let content = try read(0x02, "an INTEGER")
            guard !content.isEmpty, content.count <= 4, content.first! & 0x80 == 0 else { throw malformed("INTEGER out of range") }
            return content.reduce(0) { $0 << 8 | Int($1) }
        }
    }

    /// An iteration count as the C calls take it (`Int32` / `UInt32`). How many iterations are
    /// acceptable is the core's rule (`KeyDerivationBudget`, checked before this parser runs);
    /// this is only the structural range.
    static func iterations(_ value: Int) throws -> Int {
        guard value >= 1, value <= Int(Int32.max) else { throw malformed("iteration count \(value) out of range") }
        return value
    }

    static func malformed(_ reason: String) -> TLSTrustError {
        TLSTrustError(.malformedPKCS12, "mbedTLS backend: not a well-formed PKCS#12 file: \(reason)")
    }

    static func oid(_ bytes: ArraySlice<UInt8>) -> String {
        guard let first = bytes.first else { return "" }
        var parts = [Int(first) / 40, Int(first) % 40]
        var value = 0
        for b in bytes.dropFirst() {
            value = value << 7 | Int(b & 0x7F)
            if b & 0x80 == 0 { parts.append(value); value = 0 }
        }
        return parts.map(String.init).joined(separator: ".")
    }

    static func digest(_ oid: String) -> mbedtls_md_type_t? {
        switch oid {
        case "1.3.14.3.2.26", "1.2.840.113549.2.7": MBEDTLS_MD_SHA1
        case "2.16.840.1.101.3.4.2.4", "1.2.840.113549.2.8": MBEDTLS_MD_SHA224
        case "2.16.840.1.101.3.4.2.1", "1.2.840.113549.2.9": MBEDTLS_MD_SHA256
        case "2.16.840.1.101.3.4.2.2", "1.2.840.113549.2.10": MBEDTLS_MD_SHA384
        case "2.16.840.1.101.3.4.2.3", "1.2.840.113549.2.11": MBEDTLS_MD_SHA512
        default: nil
        }
    }

    /// What the file holds.
    struct Contents {
        var certificates: [[UInt8]] = []
        var keys: [[UInt8]] = []  // PrivateKeyInfo DER, in the clear (wiped by the caller)
    }

    static func parse(_ data: [UInt8], password: [UInt8]) throws -> Contents {
        var top = Reader(data[...])
        var pfx = Reader(try top.read(0x30, "the PFX SEQUENCE"))
        guard top.isEmpty else { throw malformed("trailing bytes after the PFX") }
        guard try pfx.integer() == 3 else { throw malformed("PFX version is not 3") }
        var authSafe = Reader(try pfx.read(0x30, "the authSafe ContentInfo"))
        let type = try authSafe.oid()
        guard type == "1.2.840.113549.1.7.1" else {
            throw TLSTrustError(.unsupported, "mbedTLS backend: PKCS#12 public-key integrity mode (\(type)) is not supported")
        }
        var explicit = Reader(try authSafe.read(0xA0, "the authSafe content"))
        let authenticated = try explicit.read(0x04, "the authSafe OCTET STRING")
        if !pfx.isEmpty {
            try verifyMAC(Reader(try pfx.read(0x30, "MacData")), over: authenticated, password: password)
        }
        var contents = Contents()
        var outer = Reader(authenticated)
        var safes = Reader(try outer.readAll(0x30, "the AuthenticatedSafe"))
        while !safes.isEmpty {
            var info = Reader(try safes.read(0x30, "a ContentInfo"))
            let kind = try info.oid()
            var wrapped = Reader(try info.read(0xA0, "ContentInfo content"))
            switch kind {
            case "1.2.840.113549.1.7.1":
                try readBags(try wrapped.read(0x04, "data"), password: password, into: &contents)
            case "1.2.840.113549.1.7.6":
                var encryptedData = Reader(try wrapped.read(0x30, "EncryptedData"))
                _ = try encryptedData.integer()
                var eci = Reader(try encryptedData.read(0x30, "EncryptedContentInfo"))
                _ = try eci.oid()
                let algorithm = try eci.read(0x30, "the content-encryption algorithm")
                let ciphertext = try eci.read(0x80, "the encrypted content")
                var plain = try decrypt(algorithm: algorithm, ciphertext: ciphertext, password: password)
                defer { IdentityPassword.wipe(&plain) }
                try readBags(plain[...], password: password, into: &contents)
            default:
                throw TLSTrustError(.unsupported, "mbedTLS backend: PKCS#12 content type \(kind) (enveloped data) is not supported")
            }
        }
        return contents
    }

    static func readBags(_ safeContents: ArraySlice<UInt8>, password: [UInt8], into contents: inout Contents) throws {
        var outer = Reader(safeContents)
        var bags = Reader(try outer.readAll(0x30, "SafeContents"))
        while !bags.isEmpty {
            var bag = Reader(try bags.read(0x30, "a SafeBag"))
            let kind = try bag.oid()
            var value = Reader(try bag.read(0xA0, "the bag value"))
            switch kind {
            case "1.2.840.113549.1.12.10.1.1":  // keyBag: PrivateKeyInfo
                let node = try value.read()
                contents.keys.append(tlv(node))
            case "1.2.840.113549.1.12.10.1.2":  // pkcs8ShroudedKeyBag: EncryptedPrivateKeyInfo
                var info = Reader(try value.read(0x30, "EncryptedPrivateKeyInfo"))
                let algorithm = try info.read(0x30, "the key-encryption algorithm")
                let ciphertext = try info.read(0x04, "the encrypted key")
                contents.keys.append(try decrypt(algorithm: algorithm, ciphertext: ciphertext, password: password))
            case "1.2.840.113549.1.12.10.1.3":  // certBag
                var certBag = Reader(try value.read(0x30, "CertBag"))
                guard try certBag.oid() == "1.2.840.113549.1.9.22.1" else { continue }  // not X.509
                var inner = Reader(try certBag.read(0xA0, "the certificate value"))
                contents.certificates.append(Array(try inner.read(0x04, "the certificate OCTET STRING")))
            default:
                continue  // CRL, secret and nested bags are not needed for an identity
            }
        }
    }

    /// The whole TLV of `node` (its tag and length re-encoded), for keys mbedTLS parses as DER.
    static func tlv(_ node: Node) -> [UInt8] {
        var out: [UInt8] = [node.tag]
        let n = node.content.count
        if n < 0x80 { out.append(UInt8(n)) } else {
            var lengthBytes: [UInt8] = []
            var v = n
            while v > 0 { lengthBytes.insert(UInt8(v & 0xFF), at: 0); v >>= 8 }
            out.append(0x80 | UInt8(lengthBytes.count))
            out += lengthBytes
        }
        return out + node.content
    }

    static func verifyMAC(_ macData: Reader, over authenticated: ArraySlice<UInt8>, password: [UInt8]) throws {
        var macData = macData
        var digestInfo = Reader(try macData.read(0x30, "DigestInfo"))
        var algorithm = Reader(try digestInfo.read(0x30, "the MAC algorithm"))
        let oid = try algorithm.oid()
        let expected = try digestInfo.read(0x04, "the MAC")
        let salt = try macData.read(0x04, "the MAC salt")
        let iterations = try Self.iterations(macData.isEmpty ? 1 : try macData.integer())
        guard let md = digest(oid), let info = mbedtls_md_info_from_type(md) else {
            throw TLSTrustError(.unsupported, "mbedTLS backend: PKCS#12 MAC digest \(oid) is not supported")
        }
        let size = Int(mbedtls_md_get_size(info))
        var key = [UInt8](repeating: 0, count: size)
        defer { IdentityPassword.wipe(&key) }
        var bmp = bmpPassword(password)
        defer { IdentityPassword.wipe(&bmp) }
        let derived = bmp.withUnsafeBufferPointer { p in
            Array(salt).withUnsafeBufferPointer { s in
                mbedtls_pkcs12_derivation(&key, size, p.baseAddress, p.count, s.baseAddress, s.count, md, 3, Int32(iterations))
            }
        }
        guard derived == 0 else { throw malformed("MAC key derivation failed: \(MbedTLSLibrary.errorText(derived))") }
        var mac = [UInt8](repeating: 0, count: size)
        let input = Array(authenticated)
        let computed = mbedtls_md_hmac(info, key, size, input, input.count, &mac)
        guard computed == 0 else { throw malformed("HMAC failed: \(MbedTLSLibrary.errorText(computed))") }
        guard mac.count == expected.count, zip(mac, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw TLSTrustError(.wrongPassword, "mbedTLS backend: the PKCS#12 MAC does not verify with this password")
        }
    }

    /// The password as PKCS#12 wants it for its key derivation: UTF-16BE with a NUL terminator.
    static func bmpPassword(_ password: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for unit in String(decoding: password, as: UTF8.self).utf16 { out += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        return out + [0, 0]
    }

    /// Decrypts with a PKCS#12 PBE or PBES2 algorithm; the result is trimmed to its first DER TLV
    /// (`mbedtls_pkcs12_pbe` does not report the unpadded length).
    static func decrypt(algorithm: ArraySlice<UInt8>, ciphertext: ArraySlice<UInt8>, password: [UInt8]) throws -> [UInt8] {
        var reader = Reader(algorithm)
        let oid = try reader.oid()
        let parameters = try reader.read(0x30, "the algorithm parameters")
        let input = Array(ciphertext)
        guard !input.isEmpty else { throw malformed("empty ciphertext") }
        var output: [UInt8]
        switch oid {
        case "1.2.840.113549.1.12.1.3", "1.2.840.113549.1.12.1.4":  // pbeWithSHAAnd3-KeyTripleDES-CBC, 2-key
            let cipher = oid.hasSuffix(".3") ? MBEDTLS_CIPHER_DES_EDE3_CBC : MBEDTLS_CIPHER_DES_EDE_CBC
            output = [UInt8](repeating: 0, count: input.count + 16)
            var params = Array(parameters)
            let status = params.withUnsafeMutableBufferPointer { p in
                var buf = mbedtls_asn1_buf(tag: 0x30, len: p.count, p: p.baseAddress)
                return password.withUnsafeBufferPointer { pw in
                    mbedtls_pkcs12_pbe(&buf, MBEDTLS_PKCS12_PBE_DECRYPT, cipher, MBEDTLS_MD_SHA1, pw.baseAddress, pw.count, input, input.count, &output)
                }
            }
            guard status == 0 else {
                throw TLSTrustError(.wrongPassword, "mbedTLS cannot decrypt the PKCS#12 contents: \(MbedTLSLibrary.errorText(status))")
            }
        case "1.2.840.113549.1.5.13":
            output = try pbes2(parameters, input, password: password)
        default:
            throw TLSTrustError(.unsupported, "mbedTLS backend: PKCS#12 encryption \(oid) is not supported (RC2 and RC4 need OpenSSL's legacy provider; use -certpbe/-keypbe AES-256-CBC or PBE-SHA1-3DES)")
        }
        var first = Reader(output[...])
        guard let node = try? first.read(), node.tag == 0x30 else {
            IdentityPassword.wipe(&output)
            throw TLSTrustError(.wrongPassword, "mbedTLS backend: the decrypted PKCS#12 contents are not DER (wrong password?)")
        }
        let trimmed = tlv(node)
        IdentityPassword.wipe(&output)
        return trimmed
    }

    static func pbes2(_ parameters: ArraySlice<UInt8>, _ input: [UInt8], password: [UInt8]) throws -> [UInt8] {
        var p = Reader(parameters)
        var kdf = Reader(try p.read(0x30, "keyDerivationFunc"))
        guard try kdf.oid() == "1.2.840.113549.1.5.12" else { throw TLSTrustError(.unsupported, "mbedTLS backend: PBES2 without PBKDF2") }
        var pbkdf2 = Reader(try kdf.read(0x30, "PBKDF2-params"))
        let salt = Array(try pbkdf2.read(0x04, "the PBKDF2 salt"))
        let iterations = try Self.iterations(try pbkdf2.integer())
        var keyLength: Int?
        var prf = MBEDTLS_MD_SHA1
        while !pbkdf2.isEmpty {
            let node = try pbkdf2.read()
            if node.tag == 0x02 {
                var r = Reader(Array(tlv(node))[...]); keyLength = try r.integer()
            } else if node.tag == 0x30 {
                var r = Reader(node.content)
                let oid = try r.oid()
                guard let md = digest(oid) else { throw TLSTrustError(.unsupported, "mbedTLS backend: PBKDF2 PRF \(oid)") }
                prf = md
            }
        }
        var scheme = Reader(try p.read(0x30, "encryptionScheme"))
        let cipherOID = try scheme.oid()
        let iv = Array(try scheme.read(0x04, "the IV"))
        let cipherType: mbedtls_cipher_type_t
        switch cipherOID {
        case "2.16.840.1.101.3.4.1.2": cipherType = MBEDTLS_CIPHER_AES_128_CBC
        case "2.16.840.1.101.3.4.1.22": cipherType = MBEDTLS_CIPHER_AES_192_CBC
        case "2.16.840.1.101.3.4.1.42": cipherType = MBEDTLS_CIPHER_AES_256_CBC
        case "1.2.840.113549.3.7": cipherType = MBEDTLS_CIPHER_DES_EDE3_CBC
        default: throw TLSTrustError(.unsupported, "mbedTLS backend: PBES2 cipher \(cipherOID) is not supported")
        }
        guard let cipherInfo = mbedtls_cipher_info_from_type(cipherType), let mdInfo = mbedtls_md_info_from_type(prf) else {
            throw TLSTrustError(.unsupported, "mbedTLS backend: this mbedTLS build lacks the PBES2 cipher or PRF")
        }
        let bits = Int(cipherInfo.pointee.key_bitlen)
        guard keyLength == nil || keyLength! * 8 == bits else { throw malformed("PBKDF2 key length does not fit the cipher") }
        var key = [UInt8](repeating: 0, count: bits / 8)
        defer { IdentityPassword.wipe(&key) }
        var md = mbedtls_md_context_t()
        mbedtls_md_init(&md)
        defer { mbedtls_md_free(&md) }
        var status = mbedtls_md_setup(&md, mdInfo, 1)
        if status == 0 {
            status = password.withUnsafeBufferPointer { pw in
                mbedtls_pkcs5_pbkdf2_hmac(&md, pw.baseAddress, pw.count, salt, salt.count, UInt32(iterations), UInt32(key.count), &key)
            }
        }
        guard status == 0 else { throw malformed("PBKDF2 failed: \(MbedTLSLibrary.errorText(status))") }
        var cipher = mbedtls_cipher_context_t()
        mbedtls_cipher_init(&cipher)
        defer { mbedtls_cipher_free(&cipher) }
        var output = [UInt8](repeating: 0, count: input.count + 32)
        var length = 0
        status = mbedtls_cipher_setup(&cipher, cipherInfo)
        if status == 0 { status = mbedtls_cipher_setkey(&cipher, key, Int32(bits), MBEDTLS_DECRYPT) }
        if status == 0 { status = mbedtls_cipher_crypt(&cipher, iv, iv.count, input, input.count, &output, &length) }
        guard status == 0 else {
            IdentityPassword.wipe(&output)
            throw TLSTrustError(.wrongPassword, "mbedTLS cannot decrypt the PBES2 contents (wrong password?): \(MbedTLSLibrary.errorText(status))")
        }
        return Array(output.prefix(length))
    }
}

extension MbedTLSPKCS12.Reader {
    /// Reads exactly one element of `tag` and requires nothing after it.
    mutating func readAll(_ tag: UInt8, _ what: String) throws -> ArraySlice<UInt8> {
        let content = try read(tag, what)
        guard isEmpty else { throw MbedTLSPKCS12.malformed("trailing bytes after \(what)") }
        return content
    }
}
