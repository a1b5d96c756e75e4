package io.sluice.transforms.rules;

import io.sluice.transforms.transformer.TransformerLibrary;
import io.sluice.transforms.transformer.TransformerSpec;

/** One line of the rules: the columns it is for and the transformer that rewrites them. */
public record Rule(ColumnPattern pattern, TransformerSpec transformer) {

    public boolean keep() {
        return TransformerLibrary.isKeep(transformer);
    }

    @Override
    public String toString() {
        return pattern + " = " + transformer;
    }
}
