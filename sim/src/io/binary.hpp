#pragma once
// Byte-level helpers for the binary particle formats: explicit-endian encoding (the host's byte
// order never leaks into a file) and a bounds-checked reader whose errors carry the byte offset.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace nbody::io::detail {

enum class Order { Little, Big };

template <class T>
T byteswap_value(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
    std::memcpy(&v, b, sizeof(T));
    return v;
}

inline bool host_is(Order o) {
    return (std::endian::native == std::endian::little) == (o == Order::Little);
}

// Appends values in a chosen byte order.
class Writer {
public:
    explicit Writer(Order order) : order_(order) {}
    template <class T>
    void put(T v) {
        if (!host_is(order_)) v = byteswap_value(v);
        const char* p = reinterpret_cast<const char*>(&v);
        bytes_.append(p, sizeof(T));
    }
    void put_bytes(std::string_view s) { bytes_.append(s.data(), s.size()); }
    std::string& bytes() { return bytes_; }
    std::size_t size() const { return bytes_.size(); }

private:
    Order order_;
    std::string bytes_;
};

// Reads values in a chosen byte order from a buffer; running past its end throws with the offset.
class Reader {
public:
    Reader(std::string_view data, Order order, std::string source)
        : data_(data), order_(order), source_(std::move(source)) {}

    std::size_t offset() const { return offset_; }
    std::size_t size() const { return data_.size(); }
    void seek(std::size_t offset) { offset_ = offset; }
    void set_order(Order o) { order_ = o; }

    template <class T>
    T get(const char* what) {
        need(sizeof(T), what);
        T v;
        std::memcpy(&v, data_.data() + offset_, sizeof(T));
        offset_ += sizeof(T);
        return host_is(order_) ? v : byteswap_value(v);
    }
    std::string_view get_bytes(std::size_t n, const char* what) {
        need(n, what);
        std::string_view s = data_.substr(offset_, n);
        offset_ += n;
        return s;
    }
    void need(std::size_t n, const char* what) const {
        if (n > data_.size() - std::min(offset_, data_.size()))
            throw std::runtime_error(source_ + ": truncated file: " + std::string(what) + " at byte offset " +
                                     std::to_string(offset_) + " needs " + std::to_string(n) +
                                     " bytes, but the file ends at byte " + std::to_string(data_.size()));
    }

private:
    std::string_view data_;
    std::size_t offset_ = 0;
    Order order_;
    std::string source_;
};

// FNV-1a, 64 bits: one multiply per byte, no table, and any single flipped bit changes it.
inline std::uint64_t fnv1a64(std::string_view data) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : data) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

}  // namespace nbody::io::detail
