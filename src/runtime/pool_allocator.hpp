// An allocator for node-based containers on the hot path (the acker's trees, a bolt's in-flight
// inputs): every tuple adds and removes one node, and glibc serves nodes of this size from its
// slow path once its small per-thread cache (7 blocks per size) runs dry, which a batch of
// hundreds of tuples always does. Freed nodes go to a per-thread free list instead and are reused
// first; arrays (a hash table's buckets) go straight to operator new.
//
// Stateless, so containers stay movable and swappable. A node freed on another thread than the
// one that allocated it is fine: it joins that thread's list. Each list keeps at most
// kMaxCached nodes; the rest are returned to the heap.
#pragma once

#include <cstddef>
#include <functional>
#include <new>
#include <unordered_map>
#include <utility>

namespace sparse::runtime {

namespace pool_detail {

// One free list per node size and alignment, per thread.
template <std::size_t Size, std::size_t Align>
class FreeList {
 public:
  static constexpr std::size_t kMaxCached = 1 << 16;

  ~FreeList() {
    while (head_) {
      Node* n = head_;
      head_ = n->next;
      ::operator delete (n, std::align_val_t{Align});
    }
  }
  void* Take() {
    if (!head_) return ::operator new (Size, std::align_val_t{Align});
    Node* n = head_;
    head_ = n->next;
    --cached_;
    return n;
  }
  void Give(void* p) {
    if (cached_ >= kMaxCached) {
      ::operator delete (p, std::align_val_t{Align});
      return;
    }
    auto* n = static_cast<Node*>(p);
    n->next = head_;
    head_ = n;
    ++cached_;
  }
  static FreeList& Local() {
    thread_local FreeList list;
    return list;
  }

 private:
  struct Node {
    Node* next;
  };
  Node* head_ = nullptr;
  std::size_t cached_ = 0;
};

}  // namespace pool_detail

template <class T>
class PoolAllocator {
 public:
  using value_type = T;

  PoolAllocator() noexcept = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}  // NOLINT: rebinding must be implicit

  T* allocate(std::size_t n) {
    if (n == 1) return static_cast<T*>(List::Local().Take());
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kAlign}));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n == 1) {
      List::Local().Give(p);
      return;
    }
    ::operator delete (p, std::align_val_t{kAlign});
  }

  template <class U>
  bool operator==(const PoolAllocator<U>&) const noexcept {
    return true;
  }

 private:
  // A free node holds the list's link, so a slot is at least a pointer wide.
  static constexpr std::size_t kAlign = alignof(T) < alignof(void*) ? alignof(void*) : alignof(T);
  static constexpr std::size_t kSize = sizeof(T) < sizeof(void*) ? sizeof(void*) : sizeof(T);
  using List = pool_detail::FreeList<kSize, kAlign>;
};

// A hash map whose nodes come from the pool.
template <class K, class V>
using PooledHashMap =
    std::unordered_map<K, V, std::hash<K>, std::equal_to<K>, PoolAllocator<std::pair<const K, V>>>;

}  // namespace sparse::runtime
