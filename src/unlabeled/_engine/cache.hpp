// LRU cache of kernel rows under a byte budget, stored as T (double, or float to hold twice
// as many rows at ~7 significant digits).
//
// Rows are keyed by an integer id in [0, n_keys) and all have the same length. Slots are
// allocated lazily, so a large budget costs nothing on a small problem. At least two slots
// always exist: a solver needs the rows of both members of its working pair at once, and
// fetching the second row must never evict the first (the most recently used).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace unl {

template <class T>
class RowCacheT {
public:
    RowCacheT(int64_t n_keys, int64_t row_len, double budget_bytes)
        : len_(row_len), slot_of_(static_cast<size_t>(n_keys), -1) {
        double per_row = static_cast<double>(std::max<int64_t>(row_len, 1)) * sizeof(T);
        int64_t fit = static_cast<int64_t>(budget_bytes / per_row);
        max_slots_ = std::max<int64_t>(2, std::min<int64_t>(fit, n_keys));
    }

    // The slot of `key`, most recently used from now on. On a miss (hit == false) its content
    // is undefined and the caller fills it.
    T* get(int64_t key, bool& hit) {
        int64_t s = slot_of_[key];
        hit = s >= 0;
        if (hit) {
            ++hits_;
            touch(s);
            return rows_[s].get();
        }
        ++misses_;
        if (static_cast<int64_t>(rows_.size()) < max_slots_) {
            s = static_cast<int64_t>(rows_.size());
            rows_.emplace_back(new T[static_cast<size_t>(len_)]);
            owner_.push_back(key);
            prev_.push_back(-1);
            next_.push_back(-1);
        } else {
            s = tail_;  // least recently used
            unlink(s);
            slot_of_[owner_[s]] = -1;
            owner_[s] = key;
        }
        slot_of_[key] = s;
        push_front(s);
        return rows_[s].get();
    }

    bool contains(int64_t key) const { return slot_of_[key] >= 0; }
    int64_t capacity() const { return max_slots_; }
    int64_t hits() const { return hits_; }
    int64_t misses() const { return misses_; }
    int64_t bytes_used() const { return static_cast<int64_t>(rows_.size()) * len_ * static_cast<int64_t>(sizeof(T)); }

private:
    int64_t len_;
    int64_t max_slots_;
    std::vector<int64_t> slot_of_;
    std::vector<std::unique_ptr<T[]>> rows_;
    std::vector<int64_t> owner_, prev_, next_;
    int64_t head_ = -1, tail_ = -1;
    int64_t hits_ = 0, misses_ = 0;

    void unlink(int64_t s) {
        if (prev_[s] >= 0) next_[prev_[s]] = next_[s]; else head_ = next_[s];
        if (next_[s] >= 0) prev_[next_[s]] = prev_[s]; else tail_ = prev_[s];
        prev_[s] = next_[s] = -1;
    }
    void push_front(int64_t s) {
        prev_[s] = -1;
        next_[s] = head_;
        if (head_ >= 0) prev_[head_] = s;
        head_ = s;
        if (tail_ < 0) tail_ = s;
    }
    void touch(int64_t s) {
        if (head_ == s) return;
        unlink(s);
        push_front(s);
    }
};

using RowCache = RowCacheT<double>;

}  // namespace unl
