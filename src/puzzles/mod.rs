pub mod knights;
