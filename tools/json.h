// A tiny JSON value for cudyn-check: built by the subcommands, written by --json, parsed back by
// the tests. Objects keep insertion order so the output is stable. Integers are int64; numbers
// with a fraction or exponent parse as doubles. No exceptions escape Parse.
#ifndef CUDYN_TOOLS_JSON_H_
#define CUDYN_TOOLS_JSON_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cudyn {
namespace check {

class Json {
 public:
  enum class Type { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool b) : type_(Type::kBool), bool_(b) {}
  Json(int i) : type_(Type::kInt), int_(i) {}
  Json(long i) : type_(Type::kInt), int_(i) {}
  Json(long long i) : type_(Type::kInt), int_(i) {}
  Json(unsigned i) : type_(Type::kInt), int_(i) {}
  Json(unsigned long i) : type_(Type::kInt), int_(static_cast<int64_t>(i)) {}
  Json(unsigned long long i) : type_(Type::kInt), int_(static_cast<int64_t>(i)) {}
  Json(double d) : type_(Type::kDouble), double_(d) {}
  Json(const char* s) : type_(Type::kString), string_(s) {}
  Json(std::string s) : type_(Type::kString), string_(std::move(s)) {}

  static Json Array() {
    Json j;
    j.type_ = Type::kArray;
    return j;
  }
  static Json Object() {
    Json j;
    j.type_ = Type::kObject;
    return j;
  }

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_int() const { return type_ == Type::kInt; }
  bool is_number() const { return type_ == Type::kInt || type_ == Type::kDouble; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  bool as_bool() const { return bool_; }
  int64_t as_int() const { return type_ == Type::kDouble ? static_cast<int64_t>(double_) : int_; }
  double as_double() const { return type_ == Type::kInt ? static_cast<double>(int_) : double_; }
  const std::string& as_string() const { return string_; }

  // Arrays.
  Json& Push(Json value);
  size_t size() const { return type_ == Type::kArray ? array_.size() : object_.size(); }
  const Json& operator[](size_t index) const;
  // (int overload: a literal 0 would otherwise be ambiguous with the const char* key.)
  const Json& operator[](int index) const {
    return index < 0 ? (*this)[static_cast<size_t>(-1)] : (*this)[static_cast<size_t>(index)];
  }
  const std::vector<Json>& items() const { return array_; }

  // Objects: Set appends a key (or replaces an existing one); operator[] returns null when absent.
  Json& Set(const std::string& key, Json value);
  const Json& operator[](const std::string& key) const;
  const Json& operator[](const char* key) const { return (*this)[std::string(key)]; }
  bool has(const std::string& key) const;
  const std::vector<std::pair<std::string, Json>>& members() const { return object_; }

  // Two-space indented with a trailing newline when pretty, else one line.
  std::string Dump(bool pretty = true) const;

  // Parses one JSON document (surrounding whitespace allowed). On failure returns false and sets
  // *error (with the byte offset).
  static bool Parse(const std::string& text, Json* out, std::string* error);

 private:
  void DumpTo(std::string* out, bool pretty, int indent) const;

  Type type_ = Type::kNull;
  bool bool_ = false;
  int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<Json> array_;
  std::vector<std::pair<std::string, Json>> object_;
};

// JSON string literal (with quotes) for `text`; invalid UTF-8 bytes become U+FFFD.
std::string JsonQuote(const std::string& text);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_JSON_H_
