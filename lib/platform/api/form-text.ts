/**
 * A form's text fields as its readers take them: trimmed, and undefined where the field is
 * missing, not text (a file) or blank, so an empty field is absent to the schema, not "".
 */
export function formText(form: FormData): (key: string) => string | undefined {
  return (key) => {
    const value = form.get(key);
    return typeof value === "string" && value.trim() ? value.trim() : undefined;
  };
}
