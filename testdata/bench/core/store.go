package core

import (
	"errors"
	"sync"
)

// ErrNotFound is returned by Get for a missing key.
var ErrNotFound = errors.New("not found")

// Store keeps values by key.
type Store interface {
	Get(key string) ([]byte, error)
	Put(key string, value []byte) error
}

// MemStore is a Store in memory.
type MemStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{m: make(map[string][]byte)} }

// Get implements Store.
func (s *MemStore) Get(key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return nil, Wrapf(ErrNotFound, "get %s", key)
	}
	return v, nil
}

// Put implements Store.
func (s *MemStore) Put(key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = value
	return nil
}
