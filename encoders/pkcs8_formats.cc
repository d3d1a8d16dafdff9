// pkcs8_formats.cc - one table-like description per layout, used both to
// recognise and to write it, so reading and writing cannot disagree.
#include "encoders/pkcs8_formats.h"

#include <cstring>

namespace mldsa::prov {
namespace {

constexpr size_t NONE = SIZE_MAX;

// Fixed bytes at a fixed offset: a DER tag and length.
struct Mark {
  size_t offset = 0;
  size_t len = 0;
  uint8_t bytes[4] = {};
};

struct Layout {
  size_t size = 0;
  Mark marks[3];
  size_t mark_count = 0;
  size_t seed_at = NONE, sk_at = NONE, pk_at = NONE;
};

Mark tag_len(size_t offset, uint8_t tag, size_t len) {
  Mark m;
  m.offset = offset;
  m.bytes[0] = tag;
  if (len < 0x80) {  // short form: only the 32-byte seed
    m.bytes[1] = static_cast<uint8_t>(len);
    m.len = 2;
  } else {  // every sk / sk||pk / SEQUENCE length is 256..65535 bytes
    m.bytes[1] = 0x82;
    m.bytes[2] = static_cast<uint8_t>(len >> 8);
    m.bytes[3] = static_cast<uint8_t>(len);
    m.len = 4;
  }
  return m;
}

Layout layout(const mldsa::Params& p, P8Format f) {
  const size_t sk = p.sk_bytes, pk = p.pk_bytes, seed = mldsa::SEED_BYTES;
  Layout l;
  switch (f) {
    case P8Format::seed_priv: {
      // SEQUENCE { OCTET STRING seed, OCTET STRING sk }
      const size_t body = 2 + seed + 4 + sk;
      l.size = 4 + body;
      l.marks[0] = tag_len(0, 0x30, body);
      l.marks[1] = tag_len(4, 0x04, seed);
      l.marks[2] = tag_len(4 + 2 + seed, 0x04, sk);
      l.mark_count = 3;
      l.seed_at = 4 + 2;
      l.sk_at = 4 + 2 + seed + 4;
      break;
    }
    case P8Format::priv_only:
      l.size = 4 + sk;
      l.marks[0] = tag_len(0, 0x04, sk);
      l.mark_count = 1;
      l.sk_at = 4;
      break;
    case P8Format::oqskeypair:
      l.size = 4 + sk + pk;
      l.marks[0] = tag_len(0, 0x04, sk + pk);
      l.mark_count = 1;
      l.sk_at = 4;
      l.pk_at = 4 + sk;
      break;
    case P8Format::seed_only:
      l.size = 2 + seed;
      l.marks[0] = tag_len(0, 0x80, seed);  // [0] IMPLICIT OCTET STRING, primitive
      l.mark_count = 1;
      l.seed_at = 2;
      break;
    case P8Format::bare_priv:
      l.size = sk;
      l.sk_at = 0;
      break;
    case P8Format::bare_seed:
      l.size = seed;
      l.seed_at = 0;
      break;
  }
  return l;
}

// OpenSSL 3.5 compares a configured name with strncasecmp over the name's
// length, so a name may abbreviate a format ("seed" picks seed-priv).
bool is_prefix_nocase(std::string_view prefix, std::string_view name) {
  if (prefix.size() > name.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char x = prefix[i], y = name[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != y) return false;  // format names are lower case
  }
  return true;
}

constexpr P8Format ALL[P8_FORMAT_COUNT] = {P8Format::seed_priv, P8Format::priv_only, P8Format::oqskeypair,
                                           P8Format::seed_only, P8Format::bare_priv, P8Format::bare_seed};

}  // namespace

const char* p8_format_name(P8Format f) {
  switch (f) {
    case P8Format::seed_priv: return "seed-priv";
    case P8Format::priv_only: return "priv-only";
    case P8Format::oqskeypair: return "oqskeypair";
    case P8Format::seed_only: return "seed-only";
    case P8Format::bare_priv: return "bare-priv";
    case P8Format::bare_seed: return "bare-seed";
  }
  return "?";
}

bool p8_format_has_seed(P8Format f) {
  return f == P8Format::seed_priv || f == P8Format::seed_only || f == P8Format::bare_seed;
}

bool p8_format_has_priv(P8Format f) {
  return f == P8Format::seed_priv || f == P8Format::priv_only || f == P8Format::oqskeypair ||
         f == P8Format::bare_priv;
}

size_t p8_format_size(const mldsa::Params& p, P8Format f) { return layout(p, f).size; }

bool P8FormatList::contains(P8Format f) const {
  for (P8Format g : view())
    if (g == f) return true;
  return false;
}

bool p8_parse_format_list(std::string_view text, P8FormatList& out) {
  out = P8FormatList{};
  constexpr std::string_view seps = " \t,";
  bool any_name = false;
  size_t pos = 0;
  while (pos < text.size()) {
    pos = text.find_first_not_of(seps, pos);
    if (pos == std::string_view::npos) break;
    size_t end = text.find_first_of(seps, pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view name = text.substr(pos, end - pos);
    any_name = true;
    // The first format, in the default order, that this name picks and no
    // earlier name did.
    for (P8Format f : ALL) {
      if (!out.contains(f) && is_prefix_nocase(name, p8_format_name(f))) {
        out.items[out.count++] = f;
        break;
      }
    }
    pos = end;
  }
  if (!any_name) {  // empty: the default order
    for (P8Format f : ALL) out.items[out.count++] = f;
    return true;
  }
  return out.count > 0;
}

P8FormatList p8_round3_inputs() {
  P8FormatList l;
  l.items[l.count++] = P8Format::oqskeypair;
  l.items[l.count++] = P8Format::priv_only;
  return l;
}

bool p8_recognise(const mldsa::Params& p, std::span<const uint8_t> der, std::span<const P8Format> allowed,
                  P8Parts& out) {
  for (P8Format f : allowed) {
    const Layout l = layout(p, f);
    if (der.size() != l.size) continue;
    bool ok = true;
    for (size_t i = 0; ok && i < l.mark_count; ++i)
      ok = std::memcmp(der.data() + l.marks[i].offset, l.marks[i].bytes, l.marks[i].len) == 0;
    if (!ok) continue;
    out = P8Parts{};
    out.format = f;
    if (l.seed_at != NONE) out.seed = der.subspan(l.seed_at, mldsa::SEED_BYTES);
    if (l.sk_at != NONE) out.sk = der.subspan(l.sk_at, p.sk_bytes);
    if (l.pk_at != NONE) out.pk = der.subspan(l.pk_at, p.pk_bytes);
    return true;
  }
  return false;
}

bool p8_write(const mldsa::Params& p, P8Format f, std::span<const uint8_t> seed, std::span<const uint8_t> sk,
              std::span<const uint8_t> pk, std::vector<uint8_t>& out) {
  const Layout l = layout(p, f);
  if ((l.seed_at != NONE && seed.size() != mldsa::SEED_BYTES) || (l.sk_at != NONE && sk.size() != p.sk_bytes) ||
      (l.pk_at != NONE && pk.size() != p.pk_bytes))
    return false;
  out.assign(l.size, 0);
  for (size_t i = 0; i < l.mark_count; ++i)
    std::memcpy(out.data() + l.marks[i].offset, l.marks[i].bytes, l.marks[i].len);
  if (l.seed_at != NONE) std::memcpy(out.data() + l.seed_at, seed.data(), seed.size());
  if (l.sk_at != NONE) std::memcpy(out.data() + l.sk_at, sk.data(), sk.size());
  if (l.pk_at != NONE) std::memcpy(out.data() + l.pk_at, pk.data(), pk.size());
  return true;
}

}  // namespace mldsa::prov
